/** The worker of token-count.ts: loads the o200k table at once, then counts each text it is sent. */
import { parentPort } from 'node:worker_threads';
import { countTokens } from '../../server/skills/catalog/catalog';

countTokens('load the table');
parentPort?.on('message', (text: string) => parentPort?.postMessage(countTokens(text)));
