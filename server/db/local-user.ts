/**
 * The person a loopback-only server (the default, no accounts) acts for. Every chat, message, file, activation and
 * grant belongs to a person; on a loopback server that is this built-in user, so the single-person app keeps working
 * without a login. In exposed mode, requests act for the signed-in account instead.
 */
export const LOCAL_USER_ID = 'local';
