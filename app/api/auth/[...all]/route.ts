/** /api/auth/**: better-auth's own routes (sign-in, sign-out, session, admin plugin), on the app's one instance. */
import { getApp } from '@/server/app';

export const dynamic = 'force-dynamic';

export const GET = (request: Request) => getApp().auth.handler(request);
export const POST = (request: Request) => getApp().auth.handler(request);
