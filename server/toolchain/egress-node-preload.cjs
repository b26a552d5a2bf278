// Loaded into every Node process of a run that has egress (NODE_OPTIONS=--require, server/sandbox/bwrap-egress.ts).
// Node 20's built-in fetch ignores http_proxy and friends (its bundled undici has no proxy support switched on, and
// NODE_USE_ENV_PROXY came later), so it would try to resolve names in a sandbox with no network. undici 7's
// EnvHttpProxyAgent, installed as the global dispatcher, sends fetch through the proxy and honours no_proxy.
// proxyTunnel: false sends http:// requests in absolute form (GET http://host/...), not through CONNECT, so the
// proxy sees each plain-HTTP request. The runtime installs undici beside this file (`runtime install`); without it
// this does nothing, and fetch fails as it would with no network.
'use strict';
try {
  const undici = require(require('node:path').join(__dirname, '..', 'node', 'node_modules', 'undici'));
  undici.setGlobalDispatcher(new undici.EnvHttpProxyAgent({ proxyTunnel: false }));
} catch {
  // No undici in the runtime: leave fetch as it is.
}
