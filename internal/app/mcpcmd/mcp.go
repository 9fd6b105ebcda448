// Package mcpcmd is ikigai mcp: the MCP servers of the configuration,
// and serving ikigai's tools over MCP.
package mcpcmd

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/signal"
	"strings"
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
		Usage: "manage MCP servers, and offer ikigai's tools to MCP clients",
		Subcommands: []*cli.Command{{
			Name:      "add",
			Usage:     "add an MCP server to your configuration (or the project's .mcp.json)",
			ArgsUsage: "[--project] [--transport stdio|http|sse] [--env KEY=VALUE]... [--header 'NAME: VALUE']... NAME COMMAND [ARGS...] | URL",
			Description: "As claude mcp add: ikigai mcp add github -- github-mcp-server stdio\n" +
				"  ikigai mcp add --transport http docs https://docs.example.com/mcp --header \"Authorization: Bearer ${TOKEN}\"\n" +
				"${VAR} is kept as written and expanded when the server starts. The rest of the file is left as it is.",
			Flags: []cli.Flag{
				&cli.BoolFlag{Name: "project", Usage: "write the project's .mcp.json"},
				&cli.StringFlag{Name: "transport", Aliases: []string{"t"}, Usage: "stdio, http or sse (default: stdio, or for a URL http falling back to sse)"},
				&cli.StringSliceFlag{Name: "env", Aliases: []string{"e"}, Usage: "`KEY=VALUE` in the server's environment"},
				&cli.StringSliceFlag{Name: "header", Aliases: []string{"H"}, Usage: "`'NAME: VALUE'` sent with every request to a URL"},
			},
			Action: addServer,
		}, {
			Name:      "remove",
			Usage:     "remove an MCP server from your configuration (or the project's .mcp.json)",
			ArgsUsage: "NAME",
			Flags:     []cli.Flag{&cli.BoolFlag{Name: "project", Usage: "edit the project's .mcp.json"}},
			Action:    removeServer,
		}, {
			Name:   "list",
			Usage:  "start the configured MCP servers and say how each went",
			Action: listServers,
		}, {
			Name:      "get",
			Usage:     "show an MCP server's settings and start it",
			ArgsUsage: "NAME",
			Action:    getServer,
		}, {
			Name:      "login",
			Usage:     "log in to a remote MCP server with OAuth (prints the address to open)",
			ArgsUsage: "NAME",
			Action:    loginServer,
		}, {
			Name:  "serve",
			Usage: "serve the discovered tools over MCP on stdin and stdout",
			Description: "Finds the tools once, as ikigai tools does (the MCP servers of the configuration\n" +
				"excepted), and serves them to the MCP client that started it until it disconnects.\n" +
				"Each call runs like one of the agent's, with the tool's timeout, and is logged.\n" +
				"SIGHUP finds the tools again and tells the client the list changed.",
			Flags: []cli.Flag{
				&cli.StringSliceFlag{Name: "tools", Usage: "serve only these tools: `NAMES`, comma-separated, or patterns such as file_*"},
				&cli.StringFlag{Name: "http", Usage: "serve streamable HTTP on `ADDR` (loopback only, such as 127.0.0.1:8931) instead of stdio; clients send Authorization: Bearer with IKIGAI_MCP_TOKEN, or the token printed on stderr"},
			},
			Action: serveMCP,
		}},
	}
}

func serveMCP(c *cli.Context) error {
	if c.Args().Present() {
		return command.Usage("usage: ikigai mcp serve [--tools NAMES] [--http ADDR]")
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
	var only []string
	for _, v := range c.StringSlice("tools") {
		for _, n := range strings.Split(v, ",") {
			if n = strings.TrimSpace(n); n != "" {
				only = append(only, n)
			}
		}
	}
	var ln net.Listener
	var token string
	if addr := c.String("http"); addr != "" {
		if ln, token, err = mcp.ListenLoopback(addr, os.Getenv("IKIGAI_MCP_TOKEN")); err != nil {
			return err
		}
		defer ln.Close()
		if os.Getenv("IKIGAI_MCP_TOKEN") == "" {
			fmt.Fprintf(c.App.ErrWriter, "Serving MCP at http://%s/ ; clients send Authorization: Bearer %s\n", ln.Addr(), token)
		} else {
			fmt.Fprintf(c.App.ErrWriter, "Serving MCP at http://%s/ ; clients send Authorization: Bearer $IKIGAI_MCP_TOKEN\n", ln.Addr())
		}
	}
	srv := mcp.NewServer(w.Discover(c.Context, log), w.Config.TimeoutFor, log, config.Rules(w.Config.Deny), mcp.ServeOptions{Tools: only})

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
	if ln != nil {
		err = srv.RunHTTP(ctx, ln, token)
	} else {
		err = srv.Run(ctx, os.Stdin, os.Stdout)
	}
	if errors.Is(err, context.Canceled) || ctx.Err() != nil {
		return nil // a signal asked it to stop
	}
	return err
}
