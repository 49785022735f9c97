package acp

import (
	"context"
	"fmt"
	"slices"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/wfrun/wfrun/internal/wferr"
)

// setting is one agent() option that goes into a session config option.
type setting struct {
	what     string                          // the agent() option: "model", "effort"
	category sdk.SessionConfigOptionCategory // the config option's category
	ids      []string                        // config option ids that mean the same, for agents that set no category
	want     string                          // the value asked for
	soft     bool                            // a default, not the call's own: a mismatch is a note, not an error
}

// configure sets the session's model and reasoning effort through its
// session config options (ACP's session/set_config_option), where the
// agent's configuration declares the capability. The call's own model or
// effort that the agent cannot take is UNSUPPORTED_OPTION; a model that is
// only the run's default (meta.model, a phase's model) is left to the
// agent's own default, with a note. Without the declared capability the
// run side refuses the options, and a default model is not sent.
func (c *child) configure(ctx context.Context) error {
	caps := c.p.agent.Capabilities
	var todo []setting
	if caps.Model && c.req.Model != "" {
		todo = append(todo, setting{what: "model", category: sdk.SessionConfigOptionCategoryModel,
			ids: []string{"model"}, want: c.req.Model, soft: c.req.ModelDefaulted})
	}
	if caps.Effort && c.req.Effort != "" {
		todo = append(todo, setting{what: "effort", category: sdk.SessionConfigOptionCategoryThoughtLevel,
			ids: []string{"thought_level", "reasoning_effort", "effort"}, want: c.req.Effort})
	}
	for _, s := range todo {
		if err := c.set(ctx, s); err != nil {
			return err
		}
	}
	return nil
}

func (c *child) set(ctx context.Context, s setting) error {
	c.mu.Lock()
	opt := findOption(c.options, s.category, s.ids)
	c.mu.Unlock()
	if opt == nil {
		msg := fmt.Sprintf("the ACP agent %s offers no %s option in its session (no config option of category %q)", c.p.name, s.what, s.category)
		if s.soft {
			c.note("%s, so the %s %q was not set and the agent used its own", msg, s.what, s.want)
			return nil
		}
		return wferr.New(wferr.UnsupportedOption, "%s: remove %s from the agent() call, or declare \"%s\": false in the agent's capabilities so that scripts are told before they run",
			msg, s.what, s.what)
	}
	values := selectValues(opt)
	v, ok := matchValue(values, s.want)
	if !ok && s.what == "effort" && strings.EqualFold(s.want, "xhigh") {
		if v, ok = matchValue(values, "high"); ok {
			c.note("the agent has no effort xhigh; used high")
		}
	}
	if !ok {
		offered := make([]string, 0, len(values))
		for _, o := range values {
			offered = append(offered, fmt.Sprintf("%q", o.Value))
		}
		msg := fmt.Sprintf("the ACP agent %s offers the %s values %s, and none of them is %q", c.p.name, s.what, strings.Join(offered, ", "), s.want)
		if s.soft {
			c.note("%s, so the agent used its own %s %q", msg, s.what, opt.CurrentValue)
			return nil
		}
		return wferr.New(wferr.UnsupportedOption, "%s: ask for one of them", msg)
	}
	if v == opt.CurrentValue {
		return nil
	}
	resp, err := c.conn.SetSessionConfigOption(ctx, sdk.SetSessionConfigOptionRequest{ValueId: &sdk.SetSessionConfigOptionValueId{
		SessionId: c.sid, ConfigId: opt.Id, Value: v}})
	if err != nil {
		if ctx.Err() != nil {
			return err
		}
		return wferr.Wrap(wferr.AgentStart, err, "the ACP agent %s refused to set its %s option %q to %q: %s", c.p.name, s.what, opt.Id, v, rpcText(err))
	}
	if resp.ConfigOptions != nil {
		c.mu.Lock()
		c.options = resp.ConfigOptions
		c.mu.Unlock()
	}
	return nil
}

// findOption returns the session's select option of the category, else
// the first whose id is one of ids (matched without regard to case), or
// nil.
func findOption(opts []sdk.SessionConfigOption, cat sdk.SessionConfigOptionCategory, ids []string) *sdk.SessionConfigOptionSelect {
	for _, o := range opts {
		if o.Select != nil && o.Select.Category != nil && *o.Select.Category == cat {
			return o.Select
		}
	}
	for _, o := range opts {
		if o.Select != nil && slices.ContainsFunc(ids, func(id string) bool { return strings.EqualFold(id, string(o.Select.Id)) }) {
			return o.Select
		}
	}
	return nil
}

// selectValues lists a select option's values, grouped or not.
func selectValues(o *sdk.SessionConfigOptionSelect) []sdk.SessionConfigSelectOption {
	var out []sdk.SessionConfigSelectOption
	if u := o.Options.Ungrouped; u != nil {
		out = append(out, *u...)
	}
	if g := o.Options.Grouped; g != nil {
		for _, grp := range *g {
			out = append(out, grp.Options...)
		}
	}
	return out
}

// matchValue finds the value that want names: the value itself; else the
// one whose value or name equals want without regard to case; else the
// only one whose value or name contains it (so that the alias "haiku" finds
// "claude-haiku-4-5").
func matchValue(values []sdk.SessionConfigSelectOption, want string) (sdk.SessionConfigValueId, bool) {
	for _, v := range values {
		if string(v.Value) == want {
			return v.Value, true
		}
	}
	for _, v := range values {
		if strings.EqualFold(string(v.Value), want) || strings.EqualFold(v.Name, want) {
			return v.Value, true
		}
	}
	lw := strings.ToLower(want)
	var found []sdk.SessionConfigValueId
	for _, v := range values {
		if strings.Contains(strings.ToLower(string(v.Value)), lw) || strings.Contains(strings.ToLower(v.Name), lw) {
			found = append(found, v.Value)
		}
	}
	if len(found) == 1 && lw != "" {
		return found[0], true
	}
	return "", false
}
