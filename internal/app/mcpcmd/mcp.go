// Package mcpcmd is ikigai mcp: serving ikigai's tools over MCP.
package mcpcmd

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"syscall"

	"github.com/ikigai-tools/ikigai/internal/app/command"

	"github.com/ikigai-tools/ikigai/internal/config"
	"github.com/ikigai-tools/ikigai/internal/mcp"
	"github.com/urfave/cli/v2"
)

// NewCommand returns the command.
func NewCommand() *cli.Command {
	return &cli.Command{
		Name:  "mcp",
		Usage: "offer ikigai's tools to MCP clients",
		Subcommands: []*cli.Command{{
			Name:  "serve",
			Usage: "serve the discovered tools over MCP on stdin and stdout",
			Description: "Finds the tools once, as ikigai tools does (the MCP servers of the configuration\n" +
				"excepted), and serves them to the MCP client that started it until it disconnects.\n" +
				"Each call runs like one of the agent's, with the tool's timeout, and is logged.\n" +
				"SIGHUP finds the tools again and tells the client the list changed.",
			Action: serveMCP,
		}},
	}
}

func serveMCP(c *cli.Context) error {
	if c.Args().Present() {
		return command.Usage("usage: ikigai mcp serve")
	}
	w, err := command.Load(c)
	if err != nil {
		return err
	}
	log := command.OpenLog(c, w)
	defer log.Close()
	// The MCP servers of the configuration are not served: a client can
	// start them itself, and a configuration naming ikigai mcp serve
	// would start servers without end.
	srv := mcp.NewServer(w.Discover(c.Context, log), w.Config.TimeoutFor, log, config.Rules(w.Config.Deny))

	ctx, stop := signal.NotifyContext(c.Context, os.Interrupt, syscall.SIGTERM)
	defer stop()
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	go func() {
		for {
			select {
			case <-hup:
				srv.Replace(w.Rediscover(ctx, log))
			case <-ctx.Done():
				return
			}
		}
	}()
	err = srv.Run(ctx, os.Stdin, os.Stdout)
	if errors.Is(err, context.Canceled) || ctx.Err() != nil {
		return nil // a signal asked it to stop
	}
	return err
}
