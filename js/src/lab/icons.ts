import { LabIcon } from "@jupyterlab/ui-components";

import dldSvg from "../../style/icons/dld.svg";

export const dldIcon = new LabIcon({ name: "dld-jupyter:designer", svgstr: dldSvg });
