'use client';
/**
 * Whether React has hydrated the component: false in the server's HTML and while hydrating, true once its handlers are
 * attached. A control whose click would do nothing before then is rendered disabled until it is (the e2e tests' clicks
 * wait for it, as a person's would), or says so with `data-hydrated`.
 */
import { useSyncExternalStore } from 'react';

const noSubscription = () => () => {};
const inBrowser = () => true;
const onServer = () => false;

export function useHydrated(): boolean {
  return useSyncExternalStore(noSubscription, inBrowser, onServer);
}
