/** /api/auth/**: better-auth's own routes (sign-in, sign-out, session, admin plugin), on the app's one instance. */
import { getApp } from '@/server/app';
import { handleAuthRequest } from '@/server/auth/handler';

export const dynamic = 'force-dynamic';

export const GET = (request: Request) => getApp().then((app) => handleAuthRequest(app.auth, request));
export const POST = (request: Request) => getApp().then((app) => handleAuthRequest(app.auth, request));
