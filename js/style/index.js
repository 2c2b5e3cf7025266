import './sidebar.css';
