import './sidebar.css';
import './stale.css';
import './operator_docs.css';
