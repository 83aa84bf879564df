//! The fast way to start a benchmark child: `posix_spawnp(3)` called directly, with the
//! environment block built once and reused.
//!
//! `std::process::Command` with an environment change (benchdiff always sets `BENCHDIFF_SIDE`
//! and `BENCHDIFF_BIN`) reads and copies the whole of benchdiff's environment into a map on
//! every spawn, opens `/dev/null` for stdin every time and allocates the argument and
//! environment strings anew: about a fifth of benchdiff's own CPU per run of `/bin/true`
//! (`perf record --no-inherit`). Here the environment block for a given set of
//! changes is built once per thread (a small cache: the old and the new side alternate),
//! `/dev/null` is opened once, and the child is started by glibc's `posix_spawnp`
//! (`clone(CLONE_VM | CLONE_VFORK)` then `execve`), as std's own fast path does.
//!
//! The child gets what [`std::process::Command`] with `process_group(0)` would give it: its own
//! process group, an empty signal mask, `SIGPIPE` back at its default action (Rust's runtime
//! ignores it in benchdiff), stdin from `/dev/null`, the given stdout and stderr, the working
//! folder when one is given (`posix_spawn_file_actions_addchdir_np`, glibc ≥ 2.29), and `PATH`
//! lookup of a program name without `/` in benchdiff's own `PATH`.
//!
//! [`spawn`] returns `None` when a request is outside this path (a `PATH` change, a NUL byte
//! in any string, a descriptor at 0–2): the caller then uses `std::process::Command`, whose
//! behaviour and error messages are the reference.

use std::cell::RefCell;
use std::ffi::{CString, OsString};
use std::io;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::sync::OnceLock;

/// An environment block: the strings `KEY=value` and the null-terminated pointer array
/// `execve` takes (pointing into `strings`, which are never moved or changed).
struct EnvBlock {
    changes: (Vec<(String, String)>, Vec<String>),
    _strings: Vec<CString>,
    ptrs: Vec<*const libc::c_char>,
}

/// How many environment blocks a thread keeps (one per side, plus helpers' changes).
const ENV_CACHE: usize = 4;

thread_local! {
    static ENVS: RefCell<Vec<EnvBlock>> = const { RefCell::new(Vec::new()) };
}

/// benchdiff's environment at first use (benchdiff never changes its own environment).
fn base_env() -> &'static [(OsString, OsString)] {
    static BASE: OnceLock<Vec<(OsString, OsString)>> = OnceLock::new();
    BASE.get_or_init(|| std::env::vars_os().collect())
}

/// `/dev/null`, opened once for reading and writing (close-on-exec).
fn dev_null() -> Option<RawFd> {
    static NULL: OnceLock<Option<OwnedFd>> = OnceLock::new();
    NULL.get_or_init(|| {
        std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open("/dev/null")
            .ok()
            .map(OwnedFd::from)
    })
    .as_ref()
    .map(|f| f.as_raw_fd())
}

fn build_env(set: &[(String, String)], remove: &[String]) -> Option<EnvBlock> {
    let mut strings: Vec<CString> = Vec::with_capacity(base_env().len() + set.len());
    let changed = |k: &[u8]| {
        set.iter().any(|(s, _)| s.as_bytes() == k) || remove.iter().any(|r| r.as_bytes() == k)
    };
    for (k, v) in base_env() {
        if changed(k.as_bytes()) {
            continue;
        }
        let mut s = Vec::with_capacity(k.len() + v.len() + 1);
        s.extend_from_slice(k.as_bytes());
        s.push(b'=');
        s.extend_from_slice(v.as_bytes());
        strings.push(CString::new(s).ok()?);
    }
    // Later settings of the same key win, as with repeated `Command::env`; a setting wins
    // over a removal (the runner removes first, then sets).
    if set.iter().any(|(k, _)| k.is_empty() || k.contains('=')) {
        return None;
    }
    for (i, (k, v)) in set.iter().enumerate() {
        if set[i + 1..].iter().any(|(l, _)| l == k) {
            continue;
        }
        strings.push(CString::new(format!("{k}={v}")).ok()?);
    }
    let mut ptrs: Vec<*const libc::c_char> = strings.iter().map(|s| s.as_ptr()).collect();
    ptrs.push(std::ptr::null());
    Some(EnvBlock {
        changes: (set.to_vec(), remove.to_vec()),
        _strings: strings,
        ptrs,
    })
}

/// Owns a `posix_spawn_file_actions_t` and destroys it when dropped.
struct FileActions(libc::posix_spawn_file_actions_t);

impl Drop for FileActions {
    fn drop(&mut self) {
        // SAFETY: initialised by posix_spawn_file_actions_init in `spawn`.
        unsafe {
            libc::posix_spawn_file_actions_destroy(&mut self.0);
        }
    }
}

/// Owns a `posix_spawnattr_t` and destroys it when dropped.
struct Attr(libc::posix_spawnattr_t);

impl Drop for Attr {
    fn drop(&mut self) {
        // SAFETY: initialised by posix_spawnattr_init in `spawn`.
        unsafe {
            libc::posix_spawnattr_destroy(&mut self.0);
        }
    }
}

fn check(rc: libc::c_int) -> io::Result<()> {
    if rc == 0 {
        Ok(())
    } else {
        Err(io::Error::from_raw_os_error(rc))
    }
}

/// Starts `argv` in a process group of its own with `env` set and `env_remove` removed,
/// stdin from `/dev/null`, stdout to `stdout` (`None`: `/dev/null`), stderr to `stderr`, in
/// `cwd` when given. Returns the child's pid, an error from `posix_spawnp` (for example
/// `ENOENT` when the program does not exist, as `execve` reported it), or `None` when the
/// request is outside this path and `std::process::Command` must start it (module notes).
pub fn spawn(
    argv: &[OsString],
    env: &[(String, String)],
    env_remove: &[String],
    cwd: Option<&Path>,
    stdout: Option<RawFd>,
    stderr: RawFd,
) -> Option<io::Result<libc::pid_t>> {
    if argv.is_empty()
        || env.iter().any(|(k, _)| k == "PATH")
        || env_remove.iter().any(|k| k == "PATH")
        || stdout.is_some_and(|f| f <= 2)
        || stderr <= 2
    {
        return None;
    }
    let null = dev_null()?;
    if null <= 2 {
        return None;
    }
    let args: Vec<CString> = argv
        .iter()
        .map(|a| CString::new(a.as_bytes()).ok())
        .collect::<Option<_>>()?;
    let mut arg_ptrs: Vec<*const libc::c_char> = args.iter().map(|a| a.as_ptr()).collect();
    arg_ptrs.push(std::ptr::null());
    let cwd = match cwd {
        Some(d) => Some(CString::new(d.as_os_str().as_bytes()).ok()?),
        None => None,
    };
    ENVS.with(|cache| {
        let mut cache = cache.borrow_mut();
        let pos = cache
            .iter()
            .position(|b| b.changes.0 == env && b.changes.1 == env_remove);
        let idx = match pos {
            Some(i) => i,
            None => {
                let block = build_env(env, env_remove)?;
                if cache.len() == ENV_CACHE {
                    cache.remove(0);
                }
                cache.push(block);
                cache.len() - 1
            }
        };
        let envp = cache[idx].ptrs.as_ptr();
        Some(spawn_with(
            &arg_ptrs,
            envp,
            cwd.as_deref(),
            null,
            stdout,
            stderr,
        ))
    })
}

/// The file actions and attributes of the last spawn on this thread, and the descriptors and
/// folder they were made for. Making them costs six `getrlimit` calls (glibc checks each
/// `adddup2` descriptor against the limit) and some allocation; a run's pipes get the same
/// descriptor numbers child after child, so they are made again only when those change.
struct Prepared {
    key: (RawFd, RawFd, RawFd, Option<std::ffi::CString>),
    fa: FileActions,
    attr: Attr,
}

thread_local! {
    static PREPARED: RefCell<Option<Prepared>> = const { RefCell::new(None) };
}

/// The file actions (stdin, stdout, stderr, folder) and attributes (own process group, empty
/// signal mask, `SIGPIPE` at its default) of a spawn.
fn prepare(
    cwd: Option<&std::ffi::CStr>,
    null: RawFd,
    stdout: Option<RawFd>,
    stderr: RawFd,
) -> io::Result<Prepared> {
    // SAFETY: every libc call gets pointers to initialised values: the file actions and
    // attributes are initialised before use and destroyed by their guards; the descriptors
    // are open (ours, close-on-exec, above 2) and `cwd` is NUL-terminated (glibc copies it).
    unsafe {
        let mut fa = FileActions(std::mem::zeroed());
        check(libc::posix_spawn_file_actions_init(&mut fa.0))?;
        check(libc::posix_spawn_file_actions_adddup2(&mut fa.0, null, 0))?;
        check(libc::posix_spawn_file_actions_adddup2(
            &mut fa.0,
            stdout.unwrap_or(null),
            1,
        ))?;
        check(libc::posix_spawn_file_actions_adddup2(&mut fa.0, stderr, 2))?;
        if let Some(d) = cwd {
            check(libc::posix_spawn_file_actions_addchdir_np(
                &mut fa.0,
                d.as_ptr(),
            ))?;
        }
        let mut attr = Attr(std::mem::zeroed());
        check(libc::posix_spawnattr_init(&mut attr.0))?;
        let mut empty: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut empty);
        check(libc::posix_spawnattr_setsigmask(&mut attr.0, &empty))?;
        let mut pipe: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut pipe);
        libc::sigaddset(&mut pipe, libc::SIGPIPE);
        check(libc::posix_spawnattr_setsigdefault(&mut attr.0, &pipe))?;
        check(libc::posix_spawnattr_setpgroup(&mut attr.0, 0))?;
        let flags = libc::POSIX_SPAWN_SETPGROUP
            | libc::POSIX_SPAWN_SETSIGMASK
            | libc::POSIX_SPAWN_SETSIGDEF;
        check(libc::posix_spawnattr_setflags(&mut attr.0, flags as _))?;
        Ok(Prepared {
            key: (
                null,
                stdout.unwrap_or(-1),
                stderr,
                cwd.map(|c| c.to_owned()),
            ),
            fa,
            attr,
        })
    }
}

fn spawn_with(
    argv: &[*const libc::c_char],
    envp: *const *const libc::c_char,
    cwd: Option<&std::ffi::CStr>,
    null: RawFd,
    stdout: Option<RawFd>,
    stderr: RawFd,
) -> io::Result<libc::pid_t> {
    PREPARED.with(|cell| {
        let mut cell = cell.borrow_mut();
        let same = cell.as_ref().is_some_and(|p| {
            p.key.0 == null
                && p.key.1 == stdout.unwrap_or(-1)
                && p.key.2 == stderr
                && p.key.3.as_deref() == cwd
        });
        if !same {
            // The old ones are destroyed first (their guards), then the new ones made.
            *cell = None;
            *cell = Some(prepare(cwd, null, stdout, stderr)?);
        }
        let Some(p) = cell.as_ref() else {
            return Err(io::Error::other("no spawn file actions"));
        };
        let mut pid: libc::pid_t = 0;
        // SAFETY: the file actions and attributes are initialised (`prepare`) and live in the
        // cell for the whole call; argv and envp are null-terminated arrays of NUL-terminated
        // strings owned by the caller for the whole call.
        check(unsafe {
            libc::posix_spawnp(
                &mut pid,
                argv[0],
                &p.fa.0,
                &p.attr.0,
                argv.as_ptr() as *const *mut libc::c_char,
                envp as *const *mut libc::c_char,
            )
        })?;
        Ok(pid)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wait(pid: libc::pid_t) -> i32 {
        let mut status = 0;
        // SAFETY: waits for our own child.
        unsafe { libc::waitpid(pid, &mut status, 0) };
        status
    }

    fn pipe() -> (std::fs::File, OwnedFd) {
        let mut fds = [0; 2];
        // SAFETY: pipe2 fills two descriptors.
        assert_eq!(unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) }, 0);
        use std::os::fd::FromRawFd;
        // SAFETY: fresh descriptors we own.
        unsafe {
            (
                std::fs::File::from_raw_fd(fds[0]),
                OwnedFd::from_raw_fd(fds[1]),
            )
        }
    }

    /// Spawns `argv` by [`spawn`] with stdout and stderr on fresh pipes, reads both to their
    /// end and waits: stdout, stderr, the wait status and the two read ends (still open).
    fn run_piped(
        argv: &[OsString],
        env: &[(String, String)],
        env_remove: &[String],
        cwd: Option<&Path>,
    ) -> (String, String, i32, (std::fs::File, std::fs::File)) {
        use std::io::Read;
        let (mut out_r, out_w) = pipe();
        let (mut err_r, err_w) = pipe();
        let pid = spawn(
            argv,
            env,
            env_remove,
            cwd,
            Some(out_w.as_raw_fd()),
            err_w.as_raw_fd(),
        )
        .expect("fast path")
        .expect("spawned");
        drop((out_w, err_w));
        let mut out = String::new();
        out_r.read_to_string(&mut out).expect("stdout");
        let mut err = String::new();
        err_r.read_to_string(&mut err).expect("stderr");
        (out, err, wait(pid), (out_r, err_r))
    }

    #[test]
    fn child_sees_environment_group_cwd_and_streams() {
        let argv: Vec<OsString> = [
            "sh",
            "-c",
            "echo \"$BENCHDIFF_SIDE $(pwd) $HOME_GONE\"; \
             [ \"$(ps -o pgid= -p $$ | tr -d ' ')\" = \"$$\" ] && echo own-group; \
             read x || echo stdin-empty; echo err >&2",
        ]
        .iter()
        .map(OsString::from)
        .collect();
        let env = vec![
            ("BENCHDIFF_SIDE".to_owned(), "first".to_owned()),
            ("BENCHDIFF_SIDE".to_owned(), "old".to_owned()),
        ];
        let (out, err, status, _) = run_piped(
            &argv,
            &env,
            &["HOME_GONE".to_owned()],
            Some(Path::new("/tmp")),
        );
        assert_eq!(status, 0);
        assert_eq!(out, "old /tmp \nown-group\nstdin-empty\n");
        assert_eq!(err, "err\n");
    }

    #[test]
    fn kept_file_actions_follow_new_descriptors_and_folders() {
        // Spawns in a row whose pipes and folders change (and then repeat): each child writes
        // to its own pipe and runs in its own folder, whatever the previous spawn used.
        let argv: Vec<OsString> = ["sh", "-c", "pwd; echo e >&2"]
            .iter()
            .map(OsString::from)
            .collect();
        let mut keep = Vec::new();
        for (i, dir) in [Some("/tmp"), Some("/"), None, None, Some("/tmp")]
            .into_iter()
            .enumerate()
        {
            let (out, err, status, readers) = run_piped(&argv, &[], &[], dir.map(Path::new));
            assert_eq!(status, 0);
            let here = std::env::current_dir().expect("cwd");
            let want = dir.map(std::path::PathBuf::from).unwrap_or(here);
            assert_eq!(out.trim_end(), want.to_string_lossy(), "spawn {i}");
            assert_eq!(err, "e\n", "spawn {i}");
            // Every other run's read ends stay open, so the next pipes get other numbers.
            if i % 2 == 0 {
                keep.push(readers);
            }
        }
    }

    #[test]
    fn missing_program_is_an_error_and_path_changes_fall_back() {
        let (_r, w) = pipe();
        let argv = vec![OsString::from("/nonexistent/benchdiff-no-such-program")];
        let e = spawn(&argv, &[], &[], None, None, w.as_raw_fd())
            .expect("fast path")
            .expect_err("no such program");
        assert_eq!(e.kind(), io::ErrorKind::NotFound);
        let path = vec![("PATH".to_owned(), "/bin".to_owned())];
        assert!(spawn(&argv, &path, &[], None, None, w.as_raw_fd()).is_none());
    }
}
