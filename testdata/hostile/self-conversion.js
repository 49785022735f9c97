// hostile: installs String.prototype.trim as an object's own toString, so converting it recurses in Go (a defect: a fatal Go stack overflow killed the process)
// expect: SCRIPT_ERROR within 5s
// timeout: 20s
const o = {}
o.toString = String.prototype.trim
return String(o)
