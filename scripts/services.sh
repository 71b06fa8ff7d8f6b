#!/usr/bin/env bash
# Make sure the services the integration tests talk to are up (SPEC §4):
# PostgreSQL, MariaDB, Redis and NATS (JetStream). On the project's machines
# they are installed and usually already running; this starts any that is
# down, installs any that is missing (Debian packages), and waits until each
# answers. It exits non-zero if one cannot be brought up.
set -uo pipefail

have() { command -v "$1" >/dev/null 2>&1; }
port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
wait_port() {
	local name=$1 port=$2 i
	for i in $(seq 1 60); do
		port_open "$port" && return 0
		sleep 0.5
	done
	echo "services: $name did not come up on 127.0.0.1:$port" >&2
	return 1
}
apt_install() {
	if [ "$(id -u)" != 0 ]; then
		echo "services: $* missing and not root; install them" >&2
		return 1
	fi
	[ -n "${APT_UPDATED:-}" ] || { apt-get update -qq >/dev/null && APT_UPDATED=1; }
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

status=0

# PostgreSQL 127.0.0.1:5432, user postgres, trust, database test.
if ! port_open 5432; then
	have pg_ctlcluster || apt_install postgresql || status=1
	pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -1)" main start 2>/dev/null || true
	wait_port postgres 5432 || status=1
fi
if port_open 5432 && have psql; then
	psql -h 127.0.0.1 -U postgres -Atc "select 1 from pg_database where datname='test'" postgres 2>/dev/null | grep -q 1 ||
		psql -h 127.0.0.1 -U postgres -c "create database test" postgres >/dev/null 2>&1 || true
fi

# MariaDB 127.0.0.1:3306, root with no password, database test.
if ! port_open 3306; then
	have mariadbd || apt_install mariadb-server || status=1
	mkdir -p /run/mysqld && chown mysql:mysql /run/mysqld 2>/dev/null || true
	start-stop-daemon --start --oknodo --background --exec /usr/sbin/mariadbd 2>/dev/null || true
	wait_port mariadb 3306 || status=1
fi
if port_open 3306 && have mysql; then
	mysql -h 127.0.0.1 -u root -e "create database if not exists test" 2>/dev/null || true
fi

# Redis 127.0.0.1:6379.
if ! port_open 6379; then
	have redis-server || apt_install redis-server || status=1
	mkdir -p /var/lib/redis /var/log/redis
	redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no \
		--dir /var/lib/redis --logfile /var/log/redis/ci.log >/dev/null 2>&1 || true
	wait_port redis 6379 || status=1
fi

# NATS with JetStream 127.0.0.1:4222.
if ! port_open 4222; then
	have nats-server || apt_install nats-server || status=1
	mkdir -p /var/lib/nats-server
	start-stop-daemon --start --oknodo --background --exec /usr/sbin/nats-server -- \
		-a 127.0.0.1 -p 4222 -js -sd /var/lib/nats-server -l /var/log/nats-server.log 2>/dev/null || true
	wait_port nats 4222 || status=1
fi

# Headless Chromium for the web console tests.
if ! have chromium; then
	apt_install chromium || status=1
fi

exit $status
