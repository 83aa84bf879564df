//! Test support for the history tests: a real PostgreSQL server started in a temporary
//! folder (Debian's `postgresql` package: `initdb` + `pg_ctl`, unix socket only, no TCP),
//! stopped by a Drop guard whatever happens. As root the server runs as `nobody` (PostgreSQL
//! refuses to run as root). Missing binaries fail the test loudly: never skipped.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The folder with `initdb`, `pg_ctl` and `postgres` (highest version under
/// /usr/lib/postgresql, or `$PG_BIN`).
fn pg_bin() -> PathBuf {
    if let Ok(p) = std::env::var("PG_BIN") {
        return PathBuf::from(p);
    }
    let mut versions: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .map(|d| {
            d.filter_map(|e| e.ok().map(|e| e.path().join("bin")))
                .collect()
        })
        .unwrap_or_default();
    versions.retain(|p| p.join("initdb").exists() && p.join("pg_ctl").exists());
    versions.sort();
    versions.pop().unwrap_or_else(|| {
        panic!(
            "PostgreSQL server binaries (initdb, pg_ctl) not found under /usr/lib/postgresql: \
             the history tests need a real server (Debian: apt-get install -y postgresql; \
             scripts/test.sh installs it)"
        )
    })
}

/// A running PostgreSQL server in a temporary folder.
pub struct PgServer {
    dir: tempfile::TempDir,
    bin: PathBuf,
    run_as: Option<String>,
    socket: PathBuf,
    next_db: AtomicUsize,
}

fn is_root() -> bool {
    // SAFETY-free: read the effective uid from /proc.
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("Uid:"))
                .and_then(|l| l.split_whitespace().nth(2).map(|u| u == "0"))
        })
        .unwrap_or(false)
}

fn command(bin: &Path, tool: &str, run_as: &Option<String>) -> Command {
    let exe = bin.join(tool);
    match run_as {
        Some(user) => {
            let mut c = Command::new("runuser");
            c.arg("-u").arg(user).arg("--").arg(exe);
            c
        }
        None => Command::new(exe),
    }
}

fn run(mut c: Command, what: &str) {
    let out = c
        .output()
        .unwrap_or_else(|e| panic!("{what}: cannot start: {e}"));
    assert!(
        out.status.success(),
        "{what} failed ({}):\n{}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

fn chown_tree(p: &Path, uid: u32, gid: u32) {
    std::os::unix::fs::chown(p, Some(uid), Some(gid)).expect("chown");
    if p.is_dir() {
        for e in std::fs::read_dir(p).expect("read_dir").flatten() {
            chown_tree(&e.path(), uid, gid);
        }
    }
}

impl PgServer {
    /// Initialises a cluster (`initdb -U postgres --auth=trust`) and starts it on a unix
    /// socket in the temporary folder.
    pub fn start() -> PgServer {
        let bin = pg_bin();
        let dir = tempfile::Builder::new()
            .prefix("bd-pg")
            .tempdir_in("/tmp")
            .expect("tempdir");
        let run_as = if is_root() {
            Some("nobody".to_owned())
        } else {
            None
        };
        let socket = dir.path().join("sock");
        std::fs::create_dir(&socket).expect("socket dir");
        if run_as.is_some() {
            let id = |flag: &str| -> u32 {
                let o = Command::new("id")
                    .arg(flag)
                    .arg("nobody")
                    .output()
                    .expect("id");
                String::from_utf8_lossy(&o.stdout)
                    .trim()
                    .parse()
                    .expect("uid")
            };
            chown_tree(dir.path(), id("-u"), id("-g"));
        }
        let data = dir.path().join("data");
        let mut c = command(&bin, "initdb", &run_as);
        c.arg("-D")
            .arg(&data)
            .args(["-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8"])
            .args(["--locale=C"]);
        run(c, "initdb");
        let mut c = command(&bin, "pg_ctl", &run_as);
        c.arg("-D")
            .arg(&data)
            .arg("-l")
            .arg(dir.path().join("log"))
            .arg("-o")
            .arg(format!(
                "-k {} -c listen_addresses='' -c fsync=off -c synchronous_commit=off",
                socket.display()
            ))
            .args(["-w", "-t", "60", "start"]);
        let server = PgServer {
            dir,
            bin,
            run_as,
            socket,
            next_db: AtomicUsize::new(0),
        };
        run(c, "pg_ctl start");
        server
    }

    /// Connection text for database `db`.
    pub fn url_for(&self, db: &str) -> String {
        format!("host={} user=postgres dbname={db}", self.socket.display())
    }

    /// A fresh, empty database; returns its connection text.
    pub fn fresh_db(&self) -> String {
        let n = self.next_db.fetch_add(1, Ordering::SeqCst);
        let name = format!("t{n}");
        let mut c = postgres::Client::connect(&self.url_for("postgres"), postgres::NoTls)
            .expect("connect to the test server");
        c.batch_execute(&format!("CREATE DATABASE {name}"))
            .expect("create database");
        self.url_for(&name)
    }
}

impl Drop for PgServer {
    fn drop(&mut self) {
        let mut c = command(&self.bin, "pg_ctl", &self.run_as);
        c.arg("-D")
            .arg(self.dir.path().join("data"))
            .args(["-m", "immediate", "-w", "stop"]);
        let _ = c.output();
    }
}
