/** The non-root user a sandbox runs as when heldout runs as root (nobody): the runtime image's passwd names it. */
export const SANDBOX_UID = 65534;
/**
 * The user the process backend's case services run as when heldout is root: not the sandbox user, so the case's
 * command (65534) cannot reach a service's view of the host through /proc/<pid>/root or /proc/<pid>/cwd.
 */
export const SERVICE_UID = 65533;
