// hostile: throws null
// expect: SCRIPT_ERROR within 5s
throw null
