/**
 * How a canvas's "Go To Documentation" panel reaches JupyterLab's documentation browser without knowing about
 * JupyterLab: the lab extension marks the page (`document.body.dataset[OPERATOR_DOCS_MARK]`) when it can open the
 * browser, and listens for OPERATOR_DOCS_EVENT ({name, domain, version}) bubbling from the page; the canvas shows its
 * "Open in ONNX Operator Documentation" button only on a marked page (a front end without our extension has none).
 */
export const OPERATOR_DOCS_EVENT = "dld-operator-docs";
export const OPERATOR_DOCS_MARK = "dldOperatorDocs";

export interface OperatorDocsRequest {
  name: string;
  domain: string;
  version?: number; // the since_version to show (the one in force in the model); default the newest
}
