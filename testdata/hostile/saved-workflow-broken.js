// hostile: calls a saved workflow that fails its own checks (a defect: INVALID_ARGUMENT at line 0)
// expect: SCRIPT_PARSE within 5s
return await workflow('typed')
