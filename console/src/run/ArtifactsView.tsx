// A Run's Harvest: each file with its size and sha256, downloadable one by one or all as a tar,
// and, with a writable workspace, the change set's patch rendered as a diff, under a warning when
// the change set says its patch holds bidi or control characters.

import { useEffect, useState } from "preact/hooks";
import type { Api, Artifacts } from "../api";
import { bytes } from "../format";
import { shortened } from "../text";
import { save } from "./download";
import { PatchView } from "./PatchView";

const PATCH = "changes.patch";
/** The files a warning names; the change set's changes.json names them all. */
const NAMED_BIDI_FILES = 10;

export function ArtifactsView({ api, id, ended }: { api: Api; id: string; ended: boolean }) {
  const [artifacts, setArtifacts] = useState<Artifacts | undefined>(undefined);
  const [patch, setPatch] = useState<string | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  useEffect(() => {
    if (!ended) return;
    let current = true;
    api
      .artifacts(id)
      .then(async (answer) => {
        if (!current) return;
        setArtifacts(answer);
        if (answer.patch === true) {
          const text = await (await api.download(id, PATCH)).text();
          if (current) setPatch(text);
        }
      })
      .catch((failure: Error) => current && setError(failure.message));
    return () => {
      current = false;
    };
  }, [api, id, ended]);

  const download = (path?: string) =>
    api
      .download(id, path)
      .then((blob) => save(blob, path ?? `agentcage-${id}-artifacts.tar`))
      .catch((failure: Error) => setError(failure.message));

  if (!ended) return <p class="empty">The Harvest is taken when the Run ends.</p>;
  if (error !== undefined)
    return (
      <p class="error" role="alert">
        {error}
      </p>
    );
  if (artifacts === undefined) return <p class="loading">Reading the Harvest…</p>;
  return (
    <div class="artifacts">
      {artifacts.refusal !== undefined && (
        <p class="error">
          The Harvest took nothing: {shortened(artifacts.refusal.message, 400)} ({shortened(artifacts.refusal.entry, 200)})
        </p>
      )}
      {artifacts.files.length === 0 ? (
        <p class="empty">No files.</p>
      ) : (
        <>
          <table class="files">
            <thead>
              <tr>
                <th>File</th>
                <th>Size</th>
                <th>sha256</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {artifacts.files.map((file) => (
                <tr data-file={file.path}>
                  <td>
                    <code>{shortened(file.path, 200)}</code>
                  </td>
                  <td>{bytes(file.size)}</td>
                  <td>
                    <code class="hash">{file.sha256}</code>
                  </td>
                  <td>
                    <button type="button" class="quiet" onClick={() => download(file.path)}>
                      Download
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <p>
            {artifacts.files.length === 1 ? "1 file" : `${artifacts.files.length} files`}, {bytes(artifacts.bytes)}.{" "}
            <button type="button" onClick={() => download()}>
              Download all (.tar)
            </button>
          </p>
        </>
      )}
      {(artifacts.changes?.bidiOrControl?.length ?? 0) > 0 && <BidiWarning paths={artifacts.changes?.bidiOrControl ?? []} />}
      {patch !== undefined && (
        <>
          <h3>Changes</h3>
          <PatchView patch={patch} />
        </>
      )}
    </div>
  );
}

/** What the change set says of its patch: some line of it may read differently from what applies. */
function BidiWarning({ paths }: { paths: readonly string[] }) {
  const named = paths.slice(0, NAMED_BIDI_FILES).map((path) => shortened(path, 200));
  const more = paths.length > NAMED_BIDI_FILES ? ` and ${paths.length - NAMED_BIDI_FILES} more (see changes.json)` : "";
  return (
    <p class="warning" role="note" data-field="bidi-or-control">
      {`This change holds bidi or control characters, so a line of it may read differently from what applies: the patch below writes them out (as \\x1b, \\u{202e}); read those lines before applying it. In ${named.join(", ")}${more}.`}
    </p>
  );
}
