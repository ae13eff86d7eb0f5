package main

import (
	"github.com/certcut/certcut/internal/lazyre"
	"io"
	"strings"

	"github.com/certcut/certcut/keys"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// subcommands are bundle's commands, by name, each with its constructor.
var subcommands = []struct {
	name string
	make func() *cobra.Command
}{
	{"verify", newVerifyCmd}, {"show", newShowCmd}, {"report", newReportCmd}, {"mint", newMintCmd},
	{"sign", newSignCmd}, {"timestamp", newTimestampCmd}, {"attest", newAttestCmd},
	{"verify-attestation", newVerifyAttestationCmd}, {"keys", newKeysCmd}, {"gate", newGateCmd},
	{"census", newCensusCmd}, {"diff", newDiffCmd}, {"schema", newSchemaCmd}, {"man", newManCmd},
	{"completion", newCompletionCmd}, {"version", newVersionCmd},
}

// newRootCmd is the whole command tree.
func newRootCmd(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	return newRoot(stdin, stdout, stderr, "")
}

// newRootCmdFor is the command tree that runs args. When args start with the name
// of a command (not man or completion, which read the whole tree), the root holds
// that command alone: the others, their flags and their defaults are not built at
// every start. Anything else (no command, a flag first, help, a mistyped name) gets
// the whole tree.
func newRootCmdFor(args []string, stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	only := ""
	if len(args) > 0 && args[0] != "man" && args[0] != "completion" {
		for _, s := range subcommands {
			if s.name == args[0] {
				only = s.name
			}
		}
	}
	return newRoot(stdin, stdout, stderr, only)
}

// newRoot is the root command with every subcommand, or with only the one named
// only.
func newRoot(stdin io.Reader, stdout, stderr io.Writer, only string) *cobra.Command {
	long, example := help("bundle")
	root := &cobra.Command{
		Use:           "bundle",
		Short:         "Mint, sign, verify and gate OpenWOP conformance evidence bundles",
		Long:          long,
		Example:       example,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       versionString(),
		PersistentPreRunE: func(*cobra.Command, []string) error {
			return checkColor()
		},
	}
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(flagError)
	root.SetVersionTemplate("bundle {{.Version}}\n")
	colorMode = "auto"
	root.PersistentFlags().StringVar(&colorMode, "color", "auto", "colour the output: `auto|always|never` (auto: on a terminal, unless NO_COLOR is set)")
	root.CompletionOptions.DisableDefaultCmd = true
	for _, sub := range subcommands {
		if only == "" || sub.name == only {
			root.AddCommand(sub.make())
		}
	}
	addKMSTimeout(root)
	return root
}

// command is a cobra command with its help from help/<name>.txt.
func command(name, use, short string, args cobra.PositionalArgs, run func(*cobra.Command, []string) error) *cobra.Command {
	long, example := help(name)
	return &cobra.Command{Use: use, Short: short, Long: long, Example: example, Args: args, RunE: run}
}

// group is a command that only holds subcommands: run alone, it says which.
func group(name, use, short string, subs ...*cobra.Command) *cobra.Command {
	var names []string
	for _, s := range subs {
		names = append(names, s.Name())
	}
	unknown := func(cmd *cobra.Command, args []string) error {
		if len(args) == 0 {
			return nil
		}
		hint := ""
		if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
			hint = "; did you mean " + strings.Join(s, " or ") + "?"
		}
		return usageErrorf("unknown command %q for %q%s (see '%s --help')", args[0], cmd.CommandPath(), hint, cmd.CommandPath())
	}
	cmd := command(name, use, short, unknown, func(cmd *cobra.Command, args []string) error {
		list := strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
		return usageErrorf("%s: give a subcommand: %s (see '%s --help')", cmd.CommandPath(), list, cmd.CommandPath())
	})
	cmd.SuggestionsMinimumDistance = 2
	cmd.AddCommand(subs...)
	return cmd
}

var unknownFlagRE = lazyre.New(`^unknown flag: --([^ ]+)`)

// flagError makes a flag error a usage error, with the nearest flag the command
// has when the name is mistyped.
func flagError(cmd *cobra.Command, err error) error {
	hint := ""
	if m := unknownFlagRE().FindStringSubmatch(err.Error()); m != nil {
		if near := nearestFlag(cmd, m[1]); near != "" {
			hint = "; did you mean --" + near + "?"
		}
	}
	return usageErrorf("%v%s (see '%s --help')", err, hint, cmd.CommandPath())
}

// nearestFlag is the flag of cmd whose name is closest to name (at most two
// edits, or one the other starts with); "" when none is.
func nearestFlag(cmd *cobra.Command, name string) string {
	best, bestD := "", 3
	visit := func(f *pflag.Flag) {
		d := editDistance(name, f.Name)
		if strings.HasPrefix(f.Name, name) || strings.HasPrefix(name, f.Name) {
			d = min(d, 2)
		}
		if d < bestD {
			best, bestD = f.Name, d
		}
	}
	cmd.Flags().VisitAll(visit)
	cmd.InheritedFlags().VisitAll(visit)
	return best
}

// editDistance is the Levenshtein distance of a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

func newCompletionCmd() *cobra.Command {
	shells := []string{"bash", "zsh", "fish", "powershell"}
	cmd := command("completion", "completion bash|zsh|fish|powershell", "Print the shell completion script for bash, zsh, fish or PowerShell",
		exactArgs(1, "a SHELL: "+strings.Join(shells, ", ")), func(cmd *cobra.Command, args []string) error {
			out, root := cmd.OutOrStdout(), cmd.Root()
			switch args[0] {
			case "bash":
				return root.GenBashCompletionV2(out, true)
			case "zsh":
				return root.GenZshCompletion(out)
			case "fish":
				return root.GenFishCompletion(out, true)
			case "powershell":
				return root.GenPowerShellCompletionWithDesc(out)
			}
			return usageErrorf("completion: unknown shell %q: give one of %s", args[0], strings.Join(shells, ", "))
		})
	cmd.ValidArgs = shells
	return cmd
}

// annotationPublicKey marks a command whose --key is a public key (it gets no
// --kms-timeout).
const annotationPublicKey = "certcut/public-key"

// addKMSTimeout gives every command that takes a signing key (--key: mint, sign,
// attest, keys public, keys retire; --pkcs11: keys generate) a --kms-timeout flag;
// loadSigner passes its value to keys.LoadSigner as the signer's timeout
// (keys.WithTimeout), which bounds every KMS and token call by it.
func addKMSTimeout(root *cobra.Command) {
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			walk(sub)
		}
		signs := c.Flags().Lookup("key") != nil || c.Flags().Lookup("pkcs11") != nil
		if !signs || c.Annotations[annotationPublicKey] != "" {
			return
		}
		timeout := c.Flags().Duration("kms-timeout", keys.DefaultKMSTimeout, "give up on a KMS key (hashivault://) or a token key (pkcs11:) when a call to it does not answer within this `DURATION`")
		chainPreRun(c, func(cmd *cobra.Command) error {
			if *timeout <= 0 {
				return usageErrorf("--kms-timeout %s: give a positive duration, e.g. 30s", *timeout)
			}
			return nil
		})
	}
	walk(root)
}

// kmsTimeout is the signer option for the command's --kms-timeout
// (keys.DefaultKMSTimeout for a command without it).
func kmsTimeout(cmd *cobra.Command) keys.SignerOption {
	d, err := cmd.Flags().GetDuration("kms-timeout")
	if err != nil {
		d = keys.DefaultKMSTimeout
	}
	return keys.WithTimeout(d)
}

// exactArgs and minArgs wrap cobra's argument checks as usage errors.
func minArgs(n int, what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) < n {
			return usageErrorf("%s: give %s (see '%s --help')", cmd.CommandPath(), what, cmd.CommandPath())
		}
		return nil
	}
}

func exactArgs(n int, what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != n {
			return usageErrorf("%s: give %s (see '%s --help')", cmd.CommandPath(), what, cmd.CommandPath())
		}
		return nil
	}
}
