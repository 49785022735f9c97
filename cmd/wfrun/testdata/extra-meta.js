export const meta = { name: 'extra-meta', description: 'carries a field from another runtime', icon: 'sparkles' }

return 1
