package temporal

import (
	"context"

	"go.temporal.io/sdk/client"
)

// ResolvedNamespace is the namespace the connection uses: Namespace, else
// the one the TEMPORAL_* environment or the profile names, else
// "default". A connection whose profile cannot be read resolves to
// Namespace ("" is the default).
func (c Connection) ResolvedNamespace() string {
	if co, err := c.ClientOptions(); err == nil {
		return co.Namespace
	}
	return c.Namespace
}

// PrepareNamespace gives the namespace conn resolves to wfrun's search
// attributes where they are missing (EnsureSearchAttributes): what a worker
// does before it starts, c being conn dialled. A namespace that cannot take
// them does not stop a worker; the runs started there wait until an
// operator adds them, as the error says.
func PrepareNamespace(ctx context.Context, c client.Client, conn Connection) error {
	return EnsureSearchAttributes(ctx, c, conn.ResolvedNamespace())
}
