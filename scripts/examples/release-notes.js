// One agent per merged pull request, all at once with Promise.all; the
// user-facing ones are grouped by area and one more agent writes the notes.
//
//   go run ./cmd/wfrun scripts/examples/release-notes.js --fake-rules scripts/examples/release-notes.rules.json --events -
export const meta = {
  name: 'release-notes',
  description: 'Summarise every merged pull request in parallel, then write release notes grouped by area',
  phases: [
    { title: 'Summarise', detail: 'one agent per pull request' },
    { title: 'Write', detail: 'one agent drafts the notes' },
  ],
}

const version = args?.version ?? '2.4.0'
const pulls = args?.pulls ?? [
  { number: 412, title: 'Retry uploads when storage answers 503' },
  { number: 415, title: 'Bump golangci-lint to 1.62' },
  { number: 418, title: 'Add --json to `acme status`' },
  { number: 421, title: 'Document the new quota headers' },
  { number: 423, title: 'Stream large exports instead of buffering them' },
]

const SUMMARY = {
  type: 'object',
  properties: {
    area: { type: 'string', enum: ['api', 'cli', 'docs', 'build'] },
    userFacing: { type: 'boolean' },
    line: { type: 'string', description: 'one release-note line, present tense' },
  },
  required: ['area', 'userFacing', 'line'],
}

phase('Summarise')
const summaries = await Promise.all(pulls.map(pr =>
  agent(`Summarise pull request #${pr.number} "${pr.title}" as one release-note line for users.`,
    { label: `PR #${pr.number}`, schema: SUMMARY })))

const notes = summaries
  .map((s, i) => s && { ...s, number: pulls[i].number })
  .filter(s => s?.userFacing)
log(`${notes.length} of ${pulls.length} pull requests are user-facing`)

const byArea = Object.groupBy(notes, s => s.area)
const sections = Object.fromEntries(Object.entries(byArea).map(([area, items]) =>
  [area, items.map(s => `${s.line} (#${s.number})`)]))

phase('Write')
const draft = await agent(
  `Write the release notes of version ${version} in Markdown, one section per area:\n${JSON.stringify(sections, null, 2)}`,
  { label: 'draft notes' })

return {
  version,
  sections,
  internal: summaries.flatMap((s, i) => (s && !s.userFacing ? [pulls[i].number] : [])),
  unsummarised: summaries.flatMap((s, i) => (s ? [] : [pulls[i].number])),
  draft,
}
