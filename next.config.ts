import type { NextConfig } from 'next';

// No usage data leaves a self-hosted install. Next reads this variable when it creates its telemetry, which `next
// build` and `next dev` do after loading this file: so a hand-run `npx next build` is covered too, not only the
// package scripts, `npm start` (bin/start.ts), CI and the image, which also set it.
process.env.NEXT_TELEMETRY_DISABLED = '1';

const nextConfig: NextConfig = {
  // better-sqlite3 is a native addon: keep it out of the server bundle (Next lists it already; explicit is clearer).
  serverExternalPackages: ['better-sqlite3'],
  poweredByHeader: false,
  experimental: {
    // `forbidden()`: a member on an admin page gets HTTP 403 with app/forbidden.tsx, not a 200 saying "Admins only".
    authInterrupts: true,
    // `npm start` builds without Turbopack's build cache (bin/start.ts): it costs a first build CPU time and disk,
    // and pays off only on a rebuild, which a start does only after an update.
    turbopackFileSystemCacheForBuild: process.env.SKILLCHAT_BUILD_CACHE !== '0',
  },
  // `npm start` builds without Next's type check (bin/start.ts); `npm test` and CI type-check with tsc instead.
  typescript: { ignoreBuildErrors: process.env.SKILLCHAT_BUILD_SKIP_TYPECHECK === '1' },
};

export default nextConfig;
