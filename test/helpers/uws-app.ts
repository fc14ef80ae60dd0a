// A bare uWS app for unit tests of the HTTP layer's pieces: listens on a free port, and closes.
import { type TemplatedApp, uws } from '../../src/http/uws.ts';

export interface ListeningApp {
  readonly port: number;
  close(): void;
}

export function listenOnFreePort(app: TemplatedApp, host = '127.0.0.1'): Promise<ListeningApp> {
  return new Promise((resolve, reject) => {
    app.listen(host, 0, (socket) => {
      if (!socket) return reject(new Error(`cannot listen on ${host}`));
      resolve({
        port: uws.us_socket_local_port(socket as never),
        close: () => {
          uws.us_listen_socket_close(socket);
          app.close();
        },
      });
    });
  });
}
