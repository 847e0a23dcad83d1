// A notice for the next render of a page: what a change answered once (a signing secret, a minted key), shown after
// the page reloads its data.
let pending: HTMLElement | null = null;

export function setFlash(notice: HTMLElement): void {
  pending = notice;
}

export function takeFlash(): HTMLElement | null {
  const n = pending;
  pending = null;
  return n;
}
