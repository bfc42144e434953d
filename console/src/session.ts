// Where the console keeps the key it signed in with: this tab's session storage, nowhere else (no
// cookie, no URL, no log), so closing the tab signs out and no other site or tab can send it.

const KEY = "agentcage.key";

export function storedKey(): string | undefined {
  return sessionStorage.getItem(KEY) ?? undefined;
}

export function keepKey(key: string): void {
  sessionStorage.setItem(KEY, key);
}

export function forgetKey(): void {
  sessionStorage.removeItem(KEY);
}
