// The console's entry: its styles and its one component, mounted into the page's #app.

import "diff2html/bundles/css/diff2html.min.css";
import "./style.css";
import { render } from "preact";
import { App } from "./App";

const root = document.getElementById("app");
if (root !== null) render(<App />, root);
