package main

import (
	"fmt"

	"github.com/spf13/cobra"
)

func init() { registerCommand(newCompletionCmd) }

// newCompletionCmd prints shell completion scripts. cobra's own completion
// command is turned off in root.go; this one is the same idea with our
// help text and the current (V2) bash script.
func newCompletionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "completion bash|zsh|fish|powershell",
		Short: "Print a shell completion script",
		Long: `Completion prints a script that lets your shell complete mcpsnoop's
commands and flags. Load it once per shell session, or install it:

  bash:       source <(mcpsnoop completion bash)
              mcpsnoop completion bash > /etc/bash_completion.d/mcpsnoop
              (needs the bash-completion package)
  zsh:        mcpsnoop completion zsh > "${fpath[1]}/_mcpsnoop"
              (with "autoload -U compinit; compinit" in ~/.zshrc)
  fish:       mcpsnoop completion fish > ~/.config/fish/completions/mcpsnoop.fish
  powershell: mcpsnoop completion powershell | Out-String | Invoke-Expression
              (add the line to your $PROFILE to keep it)`,
		Args:                  cobra.ExactArgs(1),
		ValidArgs:             []string{"bash", "zsh", "fish", "powershell"},
		DisableFlagsInUseLine: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			root, out := cmd.Root(), cmd.OutOrStdout()
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
			return &exitError{code: 2, msg: fmt.Sprintf("mcpsnoop completion: unknown shell %q: use bash, zsh, fish or powershell", args[0])}
		},
	}
}
