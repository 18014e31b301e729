// Command ferretdb runs FerretDB v1 with its SQLite backend as the local
// MongoDB-wire server for development and tests (see ../ferretdb.sh).
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
	sqliteDir := flag.String("sqlite-dir", "data", "directory for the SQLite database files; created if missing")
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

	if err := serve(*listenAddr, *sqliteDir, *logLevel); err != nil {
		fmt.Fprintf(os.Stderr, "ferretdb: %s\n", err)
		os.Exit(1)
	}
}

// serve runs FerretDB until SIGTERM or SIGINT; Run then closes the listener,
// waits for open connections and closes the SQLite databases.
func serve(listenAddr, sqliteDir, logLevel string) error {
	var level slog.Level
	if err := level.UnmarshalText([]byte(logLevel)); err != nil {
		return err
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))

	dir, err := filepath.Abs(sqliteDir)
	if err != nil {
		return err
	}
	// The SQLite backend requires an existing directory.
	if err = os.MkdirAll(dir, 0o755); err != nil {
		return err
	}

	f, err := ferretdb.New(&ferretdb.Config{
		Listener: ferretdb.ListenerConfig{TCP: listenAddr},
		Logger:   logger,
		Handler:  "sqlite",
		// Built as a URL so that unusual characters in the path are escaped;
		// the trailing slash marks a directory, as the backend requires.
		SQLiteURL: (&url.URL{Scheme: "file", Path: dir + "/"}).String(),
	})
	if err != nil {
		return err
	}

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()

	logger.Info("FerretDB starting", slog.String("listen", listenAddr), slog.String("sqlite", dir))
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
