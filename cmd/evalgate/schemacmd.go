package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/evalgate/evalgate/internal/suite"
)

func newSchemaCmd(st *cliState) *cobra.Command {
	return &cobra.Command{
		Use:   "schema [eval|targets]",
		Short: "Print the JSON Schema of eval files or targets.yaml",
		Long: `Print the JSON Schema (draft 2020-12) of eval files (eval, the default) or of targets.yaml
(targets), for editor completion and checking. It is built from the tables the loader checks
with; each release publishes both as assets. Point an editor at it with a first line:

  # yaml-language-server: $schema=` + suite.SchemaURL("eval") + `

The schema allows keys it does not list (the loader warns about them); "evalgate validate" is
the full check.`,
		Example: `  evalgate schema > eval.schema.json
  evalgate schema targets > targets.schema.json`,
		Args: cobra.MaximumNArgs(1),
		RunE: runE(st, func(cmd *cobra.Command, args []string) error {
			name := "eval"
			if len(args) == 1 {
				name = args[0]
			}
			data, ok := suite.Schema(name)
			if !ok {
				return usageErr("unknown schema %q; schemas: %s", name, strings.Join(suite.SchemaNames, ", "))
			}
			if _, err := cmd.OutOrStdout().Write(data); err != nil {
				return fmt.Errorf("write schema: %w", err)
			}
			return nil
		}),
	}
}
