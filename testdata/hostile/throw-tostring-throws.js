// hostile: throws an object whose toString, name and message all throw
// expect: SCRIPT_ERROR within 5s
throw { toString() { throw new Error('no') }, get name() { throw 1 }, get message() { throw 2 } }
