// hostile: a gigabyte string in one call (a defect: it succeeded)
// expect: RESOURCE_LIMIT within 5s
return 'x'.repeat(2 ** 30).length
