package runtime

// gate hands out the run's concurrency slots in strict FIFO order. A child
// that finds no free slot waits in the queue without a goroutine; release
// passes the slot straight to the oldest waiter. It has no lock of its own:
// the run's mutex guards it, so that granting a slot and emitting the
// child's agent.start happen in one critical section.
type gate struct {
	free   int
	queue  []*child
	closed bool
}

// admission is what enter did with a child.
type admission int

const (
	admitted admission = iota // c holds a slot: start it
	queued                    // c waits; release or drain will hand it back
	refused                   // the gate is drained: nobody will start c
)

// enter takes a slot for c, or queues it behind the children already waiting.
func (g *gate) enter(c *child) admission {
	if g.closed {
		return refused
	}
	if g.free > 0 && len(g.queue) == 0 {
		g.free--
		return admitted
	}
	g.queue = append(g.queue, c)
	return queued
}

// release gives a slot back. If a child is waiting, the slot passes to it
// and release returns it: the caller must start it.
func (g *gate) release() *child {
	if len(g.queue) > 0 && !g.closed {
		next := g.queue[0]
		g.queue[0] = nil
		g.queue = g.queue[1:]
		return next
	}
	g.free++
	return nil
}

// drain closes the gate and returns the children still waiting.
func (g *gate) drain() []*child {
	g.closed = true
	q := g.queue
	g.queue = nil
	return q
}
