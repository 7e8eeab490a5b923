import { spawn } from 'node:child_process';

/**
 * Opens a URL in the user's browser where there is one to open: macOS and Windows always,
 * elsewhere only with a graphical session (DISPLAY or WAYLAND_DISPLAY), so a server over SSH
 * does not start a text browser in the terminal. Never fails: the URL is printed anyway.
 */
export function openBrowser(url: string, env: NodeJS.ProcessEnv = process.env, platform = process.platform): boolean {
  const command =
    platform === 'darwin'
      ? ['open', url]
      : platform === 'win32'
        ? ['cmd', '/c', 'start', '""', url.replace(/&/g, '^&')]
        : env.DISPLAY || env.WAYLAND_DISPLAY
          ? ['xdg-open', url]
          : undefined;
  if (!command) return false;
  try {
    const child = spawn(command[0]!, command.slice(1), { stdio: 'ignore', detached: true, windowsHide: true });
    child.on('error', () => undefined);
    child.unref();
    return true;
  } catch {
    return false;
  }
}
