#!/usr/bin/env wfrun
// hostile: a byte-order mark and a #! line before the meta (a defect: the meta was not found)
// expect: completed within 5s
export const meta = { name: 'bom-shebang', description: 'the meta after a BOM and a shebang' }
return meta.name
