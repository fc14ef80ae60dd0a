/** A setting or the config file is wrong; the message names it. Start-up stops. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}
