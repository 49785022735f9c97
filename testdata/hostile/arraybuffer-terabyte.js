// hostile: one terabyte at once (a defect: it killed the whole process)
// expect: RESOURCE_LIMIT within 5s
return new ArrayBuffer(2 ** 40).byteLength
