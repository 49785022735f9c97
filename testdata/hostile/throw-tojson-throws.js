// hostile: throws an object whose toJSON throws
// expect: SCRIPT_ERROR within 5s
throw { toJSON() { throw new Error('no json') } }
