import { fstatSync, readFileSync } from "node:fs";

// sd_listen_fds(3): the first socket handed over is fd 3.
const FIRST_FD = 3;
// The tables of this network namespace's sockets in /proc/net: the column of the state, its value
// when listening, and the column of the inode.
const SOCKET_TABLES = [
  ["tcp", 3, "0A", 9],
  ["tcp6", 3, "0A", 9],
  ["unix", 3, "00010000", 6],
] as const;

/**
 * The socket a service manager handed over (systemd socket activation), read as sd_listen_fds(3)
 * reads it: only when LISTEN_PID is this process's, and then LISTEN_FDS must be 1 and fd 3 a
 * listening socket, else a ConfigError names it. The variables are unset, as its
 * `unset_environment` does, so no process started from here takes them for its own.
 */
export function takeListenFd(env = process.env): number | undefined {
  const { LISTEN_PID: pid, LISTEN_FDS: count } = env;
  for (const name of ["LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES"]) delete env[name];
  if (pid !== String(process.pid)) return undefined;
  const problem =
    count !== "1"
      ? "must be 1: the server listens on one socket"
      : !isListening(FIRST_FD) && `fd ${FIRST_FD} is not a listening socket`;
  if (!problem) return FIRST_FD;
  throw Object.assign(new Error(`Invalid environment variable LISTEN_FDS: ${problem}`), {
    name: "ConfigError",
  });
}

function isListening(fd: number) {
  let inode: string;
  try {
    const stats = fstatSync(fd);
    if (!stats.isSocket()) return false;
    inode = String(stats.ino);
  } catch {
    return false;
  }
  return SOCKET_TABLES.some(([table, state, listening, at]) =>
    readTable(table).some((row) => row[at] === inode && row[state] === listening),
  );
}

// A table the kernel does not have (tcp6 without IPv6) lists no socket.
function readTable(name: string) {
  try {
    const text = readFileSync(`/proc/self/net/${name}`, "utf8");
    return text.split("\n").map((line) => line.trim().split(/\s+/));
  } catch {
    return [];
  }
}
