export const meta = { name: 'throws', description: 'throws on line 4' }

log('about to throw')
throw new Error('boom on purpose')
