package main

import (
	"fmt"
	"strings"

	"github.com/spf13/pflag"
)

// The environment flags of the commands that start a program (pane spawn,
// run): --env NAME=VALUE and --unset-env NAME, both repeatable, become the
// env and env_unset parameters of Mux.SpawnPane and Run.Start, which check
// the names (invalid_params.env, .env_unset).

func envFlags(f *pflag.FlagSet) {
	f.StringArray("env", nil, "NAME=VALUE to add to the environment (repeatable)")
	f.StringArray("unset-env", nil, "NAME of an inherited variable to remove from the environment (repeatable)")
}

// addEnv sets p["env"] and p["env_unset"] from the flags that were given.
// Errors: invalid_params.env (an --env without "=").
func addEnv(f *pflag.FlagSet, p map[string]any) error {
	if envs := arrayFlag(f, "env"); len(envs) > 0 {
		env := map[string]string{}
		for _, kv := range envs {
			k, v, ok := strings.Cut(kv, "=")
			if !ok {
				return &callError{Code: "invalid_params.env", Message: fmt.Sprintf("--env %q is not NAME=VALUE", kv),
					Data: map[string]any{"param": "env", "reason": "syntax"}}
			}
			env[k] = v
		}
		p["env"] = env
	}
	if names := arrayFlag(f, "unset-env"); len(names) > 0 {
		p["env_unset"] = names
	}
	return nil
}
