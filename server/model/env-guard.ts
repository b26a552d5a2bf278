/**
 * `@ai-sdk/openai` builds a default provider when it is imported, and throws if `OPENAI_BASE_URL` is set but empty
 * (`OPENAI_BASE_URL= npm start`). Imported first by `provider.ts` so an empty variable means "not set", as
 * everywhere else in skillchat.
 */
for (const key of ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'OPENAI_MODEL']) {
  if (process.env[key] !== undefined && process.env[key]!.trim() === '') delete process.env[key];
}

export {};
