package main

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"
)

// pg creates one fresh database per measured configuration on the server
// of -postgres and drops them (also on a fatal error).
type pg struct {
	admin *sql.DB
	base  *url.URL
	live  map[string]bool
	seq   int
}

func newPG(base string) (*pg, error) {
	u, err := url.Parse(base)
	if err != nil {
		return nil, fmt.Errorf("-postgres %q: %w", base, err)
	}
	db, err := sql.Open("pgx", base)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("postgres %s: %w", u.Redacted(), err)
	}
	return &pg{admin: db, base: u, live: map[string]bool{}}, nil
}

// fresh creates an empty database and returns its URL.
func (p *pg) fresh() string {
	p.seq++
	name := fmt.Sprintf("faucet_bench_cluster_%d_%d", os.Getpid(), p.seq)
	_, err := p.admin.Exec("CREATE DATABASE " + name)
	check(err)
	p.live[name] = true
	u := *p.base
	u.Path = "/" + name
	return u.String()
}

// drop removes the database behind u (its servers are stopped already).
func (p *pg) drop(u string) {
	parsed, err := url.Parse(u)
	check(err)
	name := parsed.Path[1:]
	if _, err := p.admin.Exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)"); err != nil {
		fmt.Fprintf(os.Stderr, "drop database %s: %v\n", name, err)
	}
	delete(p.live, name)
}

func (p *pg) dropAll() {
	for name := range p.live {
		if _, err := p.admin.Exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)"); err != nil {
			fmt.Fprintf(os.Stderr, "drop database %s: %v\n", name, err)
		}
	}
	p.admin.Close()
}
