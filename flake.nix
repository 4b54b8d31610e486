{
  description = "Onboarding services (org, profile, license, onboarding workflow): development shell";

  inputs.nixpkgs.url = "github:NixOS/nixpkgs/nixos-24.11";

  outputs = { self, nixpkgs }:
    let
      systems = [ "x86_64-linux" "aarch64-linux" "x86_64-darwin" "aarch64-darwin" ];
      forAllSystems = f: nixpkgs.lib.genAttrs systems (system: f nixpkgs.legacyPackages.${system});
    in
    {
      # `nix develop`: Node 20 and npm, a PostgreSQL 15 server and client (pg_ctl, psql, pgbench)
      # for TEST_DATABASE_URL runs, and buf for protobuf work.
      devShells = forAllSystems (pkgs: {
        default = pkgs.mkShell {
          packages = [ pkgs.nodejs_20 pkgs.postgresql_15 pkgs.buf ];
        };
      });
    };
}
