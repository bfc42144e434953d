// Saving a file the service sent: fetched with the bearer header (a plain link could not carry
// it), then handed to the browser as a download under its own base name.

export function save(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement("a");
  link.href = url;
  link.download = name.split("/").at(-1) || "download";
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
