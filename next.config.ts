import type { NextConfig } from 'next';

const nextConfig: NextConfig = {
  // better-sqlite3 is a native addon: keep it out of the server bundle (Next lists it already; explicit is clearer).
  serverExternalPackages: ['better-sqlite3'],
  poweredByHeader: false,
  // `npm start` builds without Next's type check (bin/start.ts); `npm test` and CI type-check with tsc instead.
  typescript: { ignoreBuildErrors: process.env.SKILLCHAT_BUILD_SKIP_TYPECHECK === '1' },
};

export default nextConfig;
