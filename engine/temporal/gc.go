package temporal

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// DefaultPayloadMinAge is the MinAge of a zero GCOptions: a day, far
// above payloadRefresh and the lag of a cluster's visibility store.
const DefaultPayloadMinAge = 24 * time.Hour

// GCOptions configures CollectPayloads.
type GCOptions struct {
	// MinAge keeps every payload written more recently than this, whatever
	// refers to it: a run being started has put its payloads before its
	// history exists, and a cluster's visibility store lists a new run a
	// moment after it starts. 0 means DefaultPayloadMinAge; a negative
	// value means none (tests, a store no run uses any more). Below
	// payloadRefresh (an hour) a payload of a run being started can be
	// deleted under it.
	MinAge time.Duration
	// DryRun counts and lists what would be deleted, and deletes nothing.
	DryRun bool
}

// GCResult is what CollectPayloads found and did.
type GCResult struct {
	// Histories is how many workflow executions of the namespace were read.
	Histories int `json:"histories"`
	// Payloads is how many payloads the store held.
	Payloads int `json:"payloads"`
	// Referenced is how many of them a history refers to (kept).
	Referenced int `json:"referenced"`
	// Recent is how many of the others are younger than MinAge (kept).
	Recent int `json:"recent"`
	// Deleted are the keys of the payloads deleted (in a dry run: that
	// would be), and DeletedBytes their size.
	Deleted      []string `json:"deleted"`
	DeletedBytes int64    `json:"deletedBytes"`
	// DryRun says that nothing was deleted.
	DryRun bool `json:"dryRun"`
}

// CollectPayloads deletes the payloads of store that no history of c's
// namespace refers to any more: the payloads of runs whose histories
// Temporal has deleted (the namespace's retention after they closed, or
// `temporal workflow delete`). It lists the store first, then every
// workflow execution the namespace still lists, open or closed, and reads
// each history for the references of the data converter (whatever the
// workflow's type: another program may share the store); a payload none
// refers to and older than opts.MinAge is deleted. An error listing or
// reading anything but a history already deleted stops it before it
// deletes anything. Every worker and client of the namespace that uses
// the store must be one that refreshes payloads (this version of wfrun).
func CollectPayloads(ctx context.Context, c client.Client, store SweepableStore, opts GCOptions) (GCResult, error) {
	minAge := opts.MinAge
	if minAge == 0 {
		minAge = DefaultPayloadMinAge
	}
	res := GCResult{DryRun: opts.DryRun, Deleted: []string{}}
	// The store is listed before the histories are read: a payload put
	// after this is not a candidate, and one put before it for a run that
	// is not listed yet is younger than MinAge.
	start := time.Now()
	var stored []StoredPayload
	if err := store.List(ctx, func(p StoredPayload) error {
		stored = append(stored, p)
		return nil
	}); err != nil {
		return res, fmt.Errorf("cannot list the payload store: %w; nothing was deleted", err)
	}
	res.Payloads = len(stored)
	live := map[string]bool{}
	var token []byte
	for {
		resp, err := c.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{NextPageToken: token, PageSize: 500})
		if err != nil {
			return res, fmt.Errorf("cannot list the namespace's workflows: %w; nothing was deleted", err)
		}
		for _, ex := range resp.GetExecutions() {
			if err := historyRefs(ctx, c, ex.GetExecution(), live); err != nil {
				return res, fmt.Errorf("cannot read the history of workflow %s (run %s): %w; nothing was deleted", ex.GetExecution().GetWorkflowId(), ex.GetExecution().GetRunId(), err)
			}
			res.Histories++
		}
		if token = resp.GetNextPageToken(); len(token) == 0 {
			break
		}
	}
	for _, p := range stored {
		switch {
		case live[p.Key]:
			res.Referenced++
		case minAge > 0 && start.Sub(p.Written) < minAge:
			res.Recent++
		default:
			if !opts.DryRun {
				if err := store.Delete(ctx, p.Key); err != nil {
					return res, fmt.Errorf("cannot delete payload %s: %w; %d were deleted before it", p.Key, err, len(res.Deleted))
				}
			}
			res.Deleted = append(res.Deleted, p.Key)
			res.DeletedBytes += p.Size
		}
	}
	return res, nil
}

// historyRefs adds the payload keys that execution's history refers to.
// A history already deleted refers to none.
func historyRefs(ctx context.Context, c client.Client, ex *commonpb.WorkflowExecution, keys map[string]bool) error {
	it := c.GetWorkflowHistory(ctx, ex.GetWorkflowId(), ex.GetRunId(), false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		ev, err := it.Next()
		var gone *serviceerror.NotFound
		if errors.As(err, &gone) {
			return nil
		}
		if err != nil {
			return err
		}
		payloadRefs(ev.ProtoReflect(), keys)
	}
	return nil
}

// payloadFullName is the proto name of a Temporal payload.
var payloadFullName = (&commonpb.Payload{}).ProtoReflect().Descriptor().FullName()

// payloadRefs adds the keys of every payload reference in m, at any
// depth: activity inputs and results, the workflow's input and result,
// markers, signals, failures' details, memos.
func payloadRefs(m protoreflect.Message, keys map[string]bool) {
	if m.Descriptor().FullName() == payloadFullName {
		if p, ok := m.Interface().(*commonpb.Payload); ok && string(p.GetMetadata()[converter.MetadataEncoding]) == refEncoding {
			var ref payloadRef
			if json.Unmarshal(p.GetData(), &ref) == nil && validKey(ref.Key) {
				keys[ref.Key] = true
			}
		}
		return
	}
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsList() && fd.Message() != nil:
			l := v.List()
			for i := 0; i < l.Len(); i++ {
				payloadRefs(l.Get(i).Message(), keys)
			}
		case fd.IsMap() && fd.MapValue().Message() != nil:
			v.Map().Range(func(_ protoreflect.MapKey, mv protoreflect.Value) bool {
				payloadRefs(mv.Message(), keys)
				return true
			})
		case !fd.IsList() && !fd.IsMap() && fd.Message() != nil:
			payloadRefs(v.Message(), keys)
		}
		return true
	})
}
