// Command ferretdb runs FerretDB v1 as the local MongoDB-wire server for
// development and tests (see ../ferretdb.sh), on its SQLite backend (files
// under -sqlite-dir) or its PostgreSQL backend (-postgresql-url). ../ferretdb.sh
// runs SQLite: FerretDB 1.x's PostgreSQL backend uses no index either (its
// `_jsonb->'f' @> value` filters cannot use the btree indexes it creates), and
// it measured ~100x slower than patched SQLite on lookups and updates by _id.
//
// It wraps the embeddable package github.com/FerretDB/FerretDB/ferretdb instead
// of installing cmd/ferretdb: the published module lacks the generated
// build/version/version.txt, so a `go install`ed cmd/ferretdb panics at start,
// while the embeddable package skips that check.
//
// With -ping it does not serve; it asks the server at -listen-addr for a
// `ping` command over the wire protocol and exits 0 when it answers, so the
// service script can wait for readiness without node_modules or pymongo.
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/FerretDB/FerretDB/ferretdb"
	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo"
	"go.mongodb.org/mongo-driver/mongo/options"
)

func main() {
	listenAddr := flag.String("listen-addr", "127.0.0.1:27017", "TCP address to listen on (or to ping with -ping)")
	backend := flag.String("backend", "sqlite", "storage backend: sqlite or postgresql")
	sqliteDir := flag.String("sqlite-dir", "data", "sqlite: directory for the database files; created if missing")
	sqliteParams := flag.String("sqlite-params", "", "sqlite: URL query added to the directory URL, e.g. _pragma=synchronous(normal)")
	postgresqlURL := flag.String("postgresql-url", "", "postgresql: connection URL, e.g. postgres://user@127.0.0.1:5433/ferretdb")
	logLevel := flag.String("log-level", "info", "log level: debug, info, warn or error")
	ping := flag.Bool("ping", false, "do not serve; exit 0 when the server at -listen-addr answers a ping")
	flag.Parse()

	if *ping {
		if err := pingServer(*listenAddr); err != nil {
			fmt.Fprintf(os.Stderr, "ping %s: %s\n", *listenAddr, err)
			os.Exit(1)
		}
		return
	}

	var err error
	switch *backend {
	case "sqlite":
		err = serveSQLite(*listenAddr, *sqliteDir, *sqliteParams, *logLevel)
	case "postgresql":
		if *postgresqlURL == "" {
			err = fmt.Errorf("-backend postgresql needs -postgresql-url")
			break
		}
		err = serve(*listenAddr, *logLevel, "postgresql", "", *postgresqlURL)
	default:
		err = fmt.Errorf("unknown -backend %q: want sqlite or postgresql", *backend)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "ferretdb: %s\n", err)
		os.Exit(1)
	}
}

func serveSQLite(listenAddr, sqliteDir, sqliteParams, logLevel string) error {
	dir, err := filepath.Abs(sqliteDir)
	if err != nil {
		return err
	}
	// The SQLite backend requires an existing directory.
	if err = os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	query, err := url.ParseQuery(sqliteParams)
	if err != nil {
		return fmt.Errorf("-sqlite-params: %w", err)
	}
	// Built as a URL so that unusual characters in the path are escaped;
	// the trailing slash marks a directory, as the backend requires.
	// FerretDB adds busy_timeout, journal_mode(wal) and auto_vacuum pragmas unless given.
	u := &url.URL{Scheme: "file", Path: dir + "/", RawQuery: query.Encode()}
	return serve(listenAddr, logLevel, "sqlite", u.String(), "")
}

// serve runs FerretDB until SIGTERM or SIGINT; Run then closes the listener,
// waits for open connections and closes the backend.
func serve(listenAddr, logLevel, handler, sqliteURL, postgresqlURL string) error {
	var level slog.Level
	if err := level.UnmarshalText([]byte(logLevel)); err != nil {
		return err
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))

	f, err := ferretdb.New(&ferretdb.Config{
		Listener:      ferretdb.ListenerConfig{TCP: listenAddr},
		Logger:        logger,
		Handler:       handler,
		SQLiteURL:     sqliteURL,
		PostgreSQLURL: postgresqlURL,
	})
	if err != nil {
		return err
	}

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()

	logger.Info("FerretDB starting", slog.String("listen", listenAddr), slog.String("backend", handler))
	return f.Run(ctx)
}

func pingServer(addr string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()

	opts := options.Client().
		ApplyURI("mongodb://" + addr + "/").
		SetDirect(true).
		SetServerSelectionTimeout(2 * time.Second)
	client, err := mongo.Connect(ctx, opts)
	if err != nil {
		return err
	}
	defer client.Disconnect(ctx)

	return client.Database("admin").RunCommand(ctx, bson.D{{Key: "ping", Value: 1}}).Err()
}
