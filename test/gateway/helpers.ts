import http from 'node:http';

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  json: any;
  /** Body pieces with the ms (since the request) each arrived at. */
  pieces: { at: number; text: string }[];
  /** The response ended cleanly (false: the connection was cut mid-body). */
  complete: boolean;
}

/** One HTTP request over a Unix socket (`socketPath`) or TCP (`url`), recording when each body piece arrived. */
export function request(
  target: { socketPath: string } | { url: string },
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
    const opts: http.RequestOptions = {
      method,
      path,
      headers: { 'content-type': 'application/json', ...headers },
      agent: false,
    };
    let req: http.ClientRequest;
    if ('socketPath' in target) req = http.request({ ...opts, socketPath: target.socketPath });
    else {
      const u = new URL(target.url);
      req = http.request({ ...opts, host: u.hostname, port: u.port });
    }
    req.on('error', reject);
    req.on('response', (res) => {
      const pieces: { at: number; text: string }[] = [];
      res.setEncoding('utf8');
      res.on('data', (t: string) => pieces.push({ at: performance.now() - t0, text: t }));
      let finished = false;
      const done = () => {
        if (finished) return;
        finished = true;
        const text = pieces.map((p) => p.text).join('');
        let json: any;
        try {
          json = JSON.parse(text);
        } catch {}
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body: text,
          json,
          pieces,
          complete: res.complete,
        });
      };
      res.on('end', done);
      res.on('close', done);
      res.on('error', done);
    });
    req.end(payload);
  });
}

export const chat = (content = 'hi', extra: Record<string, unknown> = {}) => ({
  model: 'whatever-the-agent-wants',
  messages: [{ role: 'user', content }],
  ...extra,
});
