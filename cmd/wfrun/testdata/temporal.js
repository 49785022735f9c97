export const meta = { name: 'distributed', description: 'a fan-out and a pipeline, run on Temporal or in process' }
phase('fan out')
const xs = await parallel(Array.from({ length: args.n }, (_, i) => () => agent('part ' + i)))
phase('pipeline')
const ys = await pipeline(['a', 'b'], x => agent('draft ' + x), (prev, x) => agent('polish ' + prev))
log('parts', xs.length)
return { xs, ys }
