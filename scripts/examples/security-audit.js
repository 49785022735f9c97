// pipeline(): every file goes through audit → verify on its own, with no
// barrier between the stages, so a file's findings are checked while other
// files are still being audited. A stage that throws drops its item to null.
//
//   go run ./cmd/wfrun scripts/examples/security-audit.js --fake-rules scripts/examples/security-audit.rules.json
export const meta = {
  name: 'security-audit',
  description: 'Audit each file for injection bugs, then have a skeptic try to refute every finding',
  phases: [
    { title: 'Audit', detail: 'one auditor per file' },
    { title: 'Verify', detail: 'one skeptic per finding' },
  ],
}

const files = args?.files ?? ['api/users.go', 'api/orders.go', 'api/admin.go', 'web/search.ts']

const FINDINGS = {
  type: 'object',
  properties: {
    findings: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          line: { type: 'integer', minimum: 1 },
          kind: { type: 'string', enum: ['sql-injection', 'command-injection', 'xss'] },
          title: { type: 'string' },
        },
        required: ['line', 'kind', 'title'],
      },
    },
  },
  required: ['findings'],
}
const VERDICT = {
  type: 'object',
  properties: { real: { type: 'boolean' }, why: { type: 'string' } },
  required: ['real', 'why'],
}

const perFile = await pipeline(files,
  // Stage 1: prev is the item itself.
  (file) => agent(`Audit ${file} for SQL, command and HTML injection. Report each finding with its line.`,
    { label: `audit ${file}`, phase: 'Audit', schema: FINDINGS }),

  // Stage 2: prev is stage 1's value. Throwing drops this file to null.
  async (report, file) => {
    if (report === null) throw new Error(`the audit of ${file} failed`)
    const verdicts = await parallel(report.findings.map(f => () =>
      agent(`Try to refute this finding in ${file} at line ${f.line}: ${f.title}. ` +
        'Answer real=false unless untrusted input really reaches the sink.',
        { label: `verify ${file}:${f.line}`, phase: 'Verify', schema: VERDICT })))
    const confirmed = report.findings.filter((f, i) => verdicts[i]?.real)
    log(`${file}: ${confirmed.length} of ${report.findings.length} findings confirmed`)
    return { file, confirmed, refuted: report.findings.length - confirmed.length }
  })

const done = perFile.filter(Boolean)
return {
  confirmed: done.flatMap(r => r.confirmed.map(f => ({ file: r.file, ...f }))),
  refuted: done.reduce((n, r) => n + r.refuted, 0),
  clean: done.filter(r => r.confirmed.length === 0).map(r => r.file),
  notAudited: files.filter((f, i) => perFile[i] === null),
}
