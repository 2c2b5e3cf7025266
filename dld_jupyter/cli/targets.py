"""`dld targets add|list|remove|check|deploy`: the saved SSH targets (seed 000 "Remote Connections") from a shell.

`add` saves a connection (never a password or passphrase: those are asked when connecting, once per run);
`check` connects (host key, credentials) and prints the target's Python, driver, runtime build and deployment state;
`deploy` also builds the deployment when it is missing. Failures to connect exit 3 like an unavailable backend.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from dld_jupyter.activities.targets.base import Target
from dld_jupyter.cli.exit_codes import ExitCode
from dld_jupyter.cli.file_options import declare_files
from dld_jupyter.formats.terminal_text import echo


def add_target_options(parser: argparse.ArgumentParser) -> None:
    """`--target` and its companions, shared by `dld profile` and `dld export-engine`."""
    parser.add_argument("--target", metavar="NAME|ssh://user@host:port", help="run on a remote target (default local)")
    parser.add_argument("--identity", metavar="KEY", help="private key for the target (overrides the saved auth)")
    parser.add_argument("--deploy-dir", metavar="DIR", help="deployment folder on the target")
    parser.add_argument("--accept-host-key", metavar="SHA256:...", help="accept this host key fingerprint once")
    declare_files(parser, inputs=["--identity"])


def target_from_args(args: argparse.Namespace) -> Target:
    from dld_jupyter.activities.targets.choose import target_named

    return target_named(
        getattr(args, "target", None),
        identity=getattr(args, "identity", None),
        deploy_dir=getattr(args, "deploy_dir", None),
        accept_host_key=getattr(args, "accept_host_key", None),
        confirm_host_key=ask_host_key if sys.stdin.isatty() else None,  # a script gets the refusal, exit 3
        say=lambda line: echo(line, err=True),
    )


def ask_host_key(host: str, fingerprint: str) -> bool:
    """OpenSSH's question for an unknown host, on the terminal; only "yes" accepts (and adds it to known_hosts)."""
    echo(f"The authenticity of host '{host}' can't be established.", err=True)
    echo(f"Its key fingerprint is {fingerprint}.", err=True)
    answer = input("Are you sure you want to continue connecting (yes/no)? ")
    return answer.strip().lower() == "yes"


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("targets", help="manage remote targets (SSH connections)", description=__doc__)
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    add = commands.add_parser("add", help="save a connection")
    add.add_argument("host", help="host name, address or ~/.ssh/config alias")
    add.add_argument("--port", type=int)
    add.add_argument("--user")
    add.add_argument("--auth", default="auto", choices=["auto", "password", "key", "agent", "keyboard-interactive"])
    add.add_argument("--identity", metavar="KEY", help="private key file (auth key)")
    add.add_argument("--deploy-dir", metavar="DIR", help="deployment folder on the target (relative: to its home)")
    add.add_argument("--name", help="default user@host:port")
    add.set_defaults(func=_add)
    listing = commands.add_parser("list", help="list the saved connections")
    listing.set_defaults(func=_list)
    remove = commands.add_parser("remove", help="forget a saved connection")
    remove.add_argument("name")
    remove.set_defaults(func=_remove)
    for verb, func in (("check", _check), ("deploy", _deploy)):
        sub = commands.add_parser(verb, help=f"{verb} a target: python, driver, runtime build, deployment")
        sub.add_argument("target", metavar="NAME|ssh://user@host:port")
        sub.add_argument("--identity", metavar="KEY")
        sub.add_argument("--deploy-dir", metavar="DIR")
        sub.add_argument("--accept-host-key", metavar="SHA256:...")
        sub.set_defaults(func=func)

    def usage(args: argparse.Namespace) -> int:
        parser.print_help(sys.stderr)
        return int(ExitCode.BAD_INPUT)

    parser.set_defaults(func=usage)


def _add(args: argparse.Namespace) -> int:
    from dld_jupyter.activities.errors import SpecError
    from dld_jupyter.activities.targets.connections import DEFAULT_DEPLOY_DIR, Connection, ConnectionStore
    from dld_jupyter.activities.targets.identity import identity_problem

    problem = identity_problem(Path(args.identity).expanduser()) if args.identity else None
    if problem is not None:  # said now, not at the first connection (/dev/zero was read for 20 s there)
        raise SpecError(f"--identity: {problem}")

    connection = Connection(
        host=args.host,
        port=args.port,
        user=args.user,
        auth="key" if args.identity and args.auth == "auto" else args.auth,
        identity=args.identity,
        deploy_dir=args.deploy_dir or DEFAULT_DEPLOY_DIR,
        name=args.name or "",
    )
    ConnectionStore().add(connection)
    echo(connection.name)
    return int(ExitCode.OK)


def _list(args: argparse.Namespace) -> int:
    from dld_jupyter.activities.targets.connections import ConnectionStore

    for name, c in sorted(ConnectionStore().load().items()):
        echo(f"{name}\t{c.where()}\tauth {c.auth}\tdeploy {c.deploy_dir}")
    return int(ExitCode.OK)


def _remove(args: argparse.Namespace) -> int:
    from dld_jupyter.activities.targets.connections import ConnectionStore

    ConnectionStore().remove(args.name)
    return int(ExitCode.OK)


def _check(args: argparse.Namespace, deploy: bool = False) -> int:
    from dld_jupyter.activities.targets.ssh import SshTarget

    target = target_from_args(args)
    if not isinstance(target, SshTarget):
        echo("local: this machine (nothing to deploy)")
        return int(ExitCode.OK)
    info = target.ensure_deployed() if deploy else target.check()
    for line in info.lines():
        echo(line)
    return int(ExitCode.OK)


def _deploy(args: argparse.Namespace) -> int:
    return _check(args, deploy=True)
