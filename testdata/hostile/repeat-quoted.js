// hostile: a gigabyte string through a quoted method name, which the source checks once missed
// expect: RESOURCE_LIMIT within 5s
const { 'padEnd': pad } = String.prototype
return 'x'['repeat'](2 ** 29).length + pad.call('y', 2 ** 30).length
