/**
 * Whether a module is the script Node was started with. Compares real paths,
 * so a checkout under a folder with a space, a percent sign or a symlink in
 * its path still runs its command-line tools (a URL compared with
 * `file://${argv[1]}` does not).
 */
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export function isMain(moduleUrl: string, argv1: string | undefined = process.argv[1]): boolean {
  if (!argv1) return false;
  const real = (path: string) => {
    try {
      return realpathSync(path);
    } catch {
      return path;
    }
  };
  return real(fileURLToPath(moduleUrl)) === real(argv1);
}
