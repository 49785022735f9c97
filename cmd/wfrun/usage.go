package main

import (
	_ "embed"
	"flag"
	"runtime/debug"
	"strings"

	"github.com/wfrun/wfrun/internal/flagvalue"
	"github.com/wfrun/wfrun/internal/human"
)

// The help is generated from the command table and the commands' flag
// sets (golden file: testdata/help.golden); only the paragraphs around
// them are written by hand, in help/.

var (
	//go:embed help/intro.txt
	intro string
	//go:embed help/flags.txt
	flagsNote string
	//go:embed help/exit.txt
	exitAndExamples string
)

// summaryColumn is where a command's summary starts in the help, and
// helpWidth the width prose wraps at (a flag's text starts at
// flagvalue.FlagColumn).
const (
	summaryColumn = 34
	helpWidth     = flagvalue.Width
)

// sections are the groups of flags that several commands share, each a
// flag set of the help's own, named by its title in the help.
func sections() []*flag.FlagSet {
	section := flagvalue.Section
	return []*flag.FlagSet{
		section("Input", new(inputFlags).bind),
		section("Sub-agents", new(agentFlags).Bind),
		section("Limits (on mcp, agent, ui and worker: the defaults of every run)", new(limitFlags).Bind),
		section("Output", func(fs *flag.FlagSet) { bindEvents(fs, new(string)); bindOTLP(fs, new(string)) }),
		section("Runs folder (resume, retry and continue replay what it journaled)", func(fs *flag.FlagSet) { bindRunsDir(fs, new(string)) }),
		section("Temporal", new(temporalFlags).BindFlags),
	}
}

// usage is the text of `wfrun --help`: every command, every flag, the exit
// statuses and examples.
func usage() string {
	var b strings.Builder
	b.WriteString(intro + "\nUsage:\n")
	heading := ""
	for _, c := range commands() {
		if c.section != heading {
			heading = c.section
			b.WriteString("\n" + heading + ":\n")
		}
		flagvalue.WriteHanging(&b, "  wfrun "+c.use, summaryColumn, c.summary)
	}
	flagvalue.WriteHanging(&b, "  wfrun COMMAND --help", summaryColumn, "the flags of one command")
	b.WriteString("  wfrun --help | --version\n\n" + flagsNote)
	shared := sections()
	for _, s := range shared {
		b.WriteString("\n" + s.Name() + ":\n")
		s.VisitAll(func(f *flag.Flag) { flagvalue.WriteFlag(&b, f, "") })
	}
	// The flags of one command or a few, each once, named after them.
	b.WriteString("\nFlags of one command:\n")
	var sets []*flag.FlagSet
	var names []string
	for _, c := range commands() {
		if c.flags != nil {
			fs, _ := c.flagSet()
			sets, names = append(sets, fs), append(names, c.word())
		}
	}
	onUsageLine := map[string]bool{"version": true}
	flagvalue.WriteOwned(&b, sets, names, shared, onUsageLine, func(owners []string) string {
		return "wfrun " + human.And(owners) + ": "
	})
	b.WriteString("\n" + exitAndExamples)
	return b.String()
}

// usage is the text of `wfrun NAME --help`: how to invoke it, what it
// does and its flags, by section.
func (c command) usage() string {
	var b strings.Builder
	b.WriteString("usage: wfrun " + c.use + "\n\n")
	flagvalue.WriteHanging(&b, "", 0, c.summary)
	fs, _ := c.flagSet()
	flagvalue.WriteSections(&b, fs, sections())
	b.WriteString("\nRun 'wfrun --help' for every command, the exit statuses and examples.\n")
	return b.String()
}

// shortUsage is printed when wfrun is run without arguments.
func shortUsage() string {
	var b strings.Builder
	for i, c := range commands() {
		lead := "       wfrun "
		if i == 0 {
			lead = "usage: wfrun "
		}
		b.WriteString(lead + c.use + "\n")
	}
	b.WriteString("Run 'wfrun --help' for the flags, examples and exit codes.\n")
	return b.String()
}

// version is the module version and VCS revision the binary was built from.
func version() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "(unknown)"
	}
	v := info.Main.Version
	for _, s := range info.Settings {
		if s.Key == "vcs.revision" && len(s.Value) >= 12 {
			v += " " + s.Value[:12]
		}
	}
	return v
}
