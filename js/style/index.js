import './sidebar.css';
import './stale.css';
