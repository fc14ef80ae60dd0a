// REDIS_URL → where and how to connect. Standalone URLs are ioredis's own; Sentinel and Cluster
// name several hosts, which WHATWG URLs cannot, so they are parsed here:
//   redis://[user:pass@]host:6379[/db]                 rediss:// for TLS
//   redis+sentinel://[user:pass@]h1:26379,h2:26379/mymaster[/db][?sentinelUsername=…&sentinelPassword=…]
//   redis+cluster://[user:pass@]h1:7000,h2:7001        rediss+sentinel://, rediss+cluster:// for TLS
// The user and password are the data nodes'; Sentinels take theirs from the query.

export interface HostPort {
  readonly host: string;
  readonly port: number;
}

interface Credentials {
  readonly username: string | undefined;
  readonly password: string | undefined;
  readonly tls: boolean;
}

export type RedisTarget =
  | { readonly kind: 'standalone'; readonly url: string }
  | (Credentials & { readonly kind: 'sentinel'; readonly sentinels: readonly HostPort[]; readonly name: string; readonly db: number;
      readonly sentinelUsername: string | undefined; readonly sentinelPassword: string | undefined })
  | (Credentials & { readonly kind: 'cluster'; readonly nodes: readonly HostPort[] });

const MULTI_HOST = /^(rediss?)\+(sentinel|cluster):\/\/(?:([^@/]*)@)?([^/?#]+)(?:\/([^?#]*))?(?:\?([^#]*))?$/;
const HOST_PORT = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]]+))(?::(\d{1,5}))?$/;

export function parseRedisUrl(raw: string): RedisTarget {
  const url = raw.trim();
  if (/^rediss?:\/\//.test(url)) {
    if ((URL.parse(url)?.hostname ?? '') === '') throw new RangeError('is not a valid redis:// URL with a host');
    return { kind: 'standalone', url };
  }
  const match = MULTI_HOST.exec(url);
  if (match === null) throw new RangeError('must start with redis://, rediss://, redis+sentinel://, redis+cluster:// (or rediss+…)');
  const [, scheme, kind, userInfo, hosts = '', path = '', query = ''] = match;
  const defaultPort = kind === 'sentinel' ? 26379 : 6379;
  const credentials = { ...parseUserInfo(userInfo), tls: scheme === 'rediss' };
  const addresses = hosts.split(',').map((part) => parseHostPort(part, defaultPort));
  if (kind === 'cluster') {
    if (path !== '') throw new RangeError('a cluster URL has no path (Redis Cluster has only database 0)');
    return { kind: 'cluster', nodes: addresses, ...credentials };
  }
  const [name = '', db = '0', ...extra] = path.split('/');
  if (name === '' || extra.length > 0 || !/^\d{1,2}$/.test(db)) throw new RangeError('a Sentinel URL ends in /MASTER_NAME or /MASTER_NAME/DB');
  const params = new URLSearchParams(query);
  return {
    kind: 'sentinel', sentinels: addresses, name: decodeURIComponent(name), db: Number(db), ...credentials,
    sentinelUsername: params.get('sentinelUsername') ?? undefined,
    sentinelPassword: params.get('sentinelPassword') ?? undefined,
  };
}

function parseUserInfo(userInfo: string | undefined): { username: string | undefined; password: string | undefined } {
  if (userInfo === undefined || userInfo === '') return { username: undefined, password: undefined };
  const colon = userInfo.indexOf(':');
  const user = decodeURIComponent(colon === -1 ? userInfo : userInfo.slice(0, colon));
  const password = colon === -1 ? undefined : decodeURIComponent(userInfo.slice(colon + 1));
  return { username: user === '' ? undefined : user, password };
}

function parseHostPort(text: string, defaultPort: number): HostPort {
  const match = HOST_PORT.exec(text.trim());
  const port = Number(match?.[3] ?? defaultPort);
  const host = match?.[1] ?? match?.[2];
  if (host === undefined || port < 1 || port > 65535) throw new RangeError(`has an invalid host "${text}"`);
  return { host, port };
}

/** The URL without its password, for messages and logs. */
export function redactRedisUrl(raw: string): string {
  return raw.trim().replace(/^([a-z+]+:\/\/[^:@/]*:)[^@/]*@/i, '$1***@');
}
